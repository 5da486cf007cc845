internal import CArchive

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Unpacks a model archive (zip, tar.gz, tar.bz2, tar.xz) into a folder, on libarchive.
///
/// Every entry is checked before anything of it is written: an absolute path, a `..`
/// component, a symbolic or hard link whose target leaves the folder, or a device, FIFO
/// or socket stops the extraction with `.unsafeArchive`. libarchive's own guards
/// (`SECURE_NODOTDOT`, `SECURE_SYMLINKS`) stay on behind ours. The caller extracts into a
/// fresh staging folder and deletes it on failure, so a refused archive leaves nothing.
enum ArchiveExtractor {
    /// What one entry is, as far as the checks care.
    enum EntryKind: Equatable {
        case file
        case directory
        case symlink(target: String)
        case hardlink(target: String)
        case other(String)
    }

    /// libarchive's version and its compression libraries.
    static var libraryVersion: String {
        switch ArchiveLibrary.shared {
        case .success(let lib): lib.versionDetails().map { String(cString: $0) } ?? "unknown"
        case .failure(let error): "not available: \(error.message)"
        }
    }

    /// Extracts `archive` into `folder` (which must exist and should be empty).
    ///
    /// - Parameters:
    ///   - maxBytes: Stop with `.insufficientStorage` once the content written exceeds this.
    ///   - progress: The share of the archive read so far, 0…1.
    /// - Returns: The relative paths of the regular files written.
    static func extract(
        _ archive: URL,
        type: ArchiveType,
        into folder: URL,
        maxBytes: Int64? = nil,
        cancel: CancellationFlag? = nil,
        progress: (Double) -> Void = { _ in }
    ) throws(SDKException) -> [String] {
        let lib = try ArchiveLibrary.load()
        guard let reader = lib.readNew() else { throw SDKException(.internalError, "libarchive could not start") }
        defer { _ = lib.readFree(reader) }
        _ = lib.readSupportFilterGzip(reader)
        _ = lib.readSupportFilterBzip2(reader)
        _ = lib.readSupportFilterXz(reader)
        switch type {
        case .zip: _ = lib.readSupportFormatZip(reader)
        case .tarGz, .tarBz2, .tarXz:
            _ = lib.readSupportFormatTar(reader)
            _ = lib.readSupportFormatGnutar(reader)
        }
        let archiveSize = max(1, FileSystem.allocatedSize(of: archive))
        guard lib.readOpenFilename(reader, archive.path, 1 << 20) == ARCHIVE_OK else {
            throw invalid(archive, reader, lib)
        }
        guard let writer = lib.writeDiskNew() else {
            throw SDKException(.internalError, "libarchive could not start")
        }
        defer { _ = lib.writeFree(writer) }
        _ = lib.writeDiskSetOptions(
            writer,
            ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT
                | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_NO_OVERWRITE
        )

        var files: [String] = []
        var written: Int64 = 0
        var entry: OpaquePointer?
        while true {
            if cancel?.isCancelled == true {
                throw SDKException(.downloadCancelled, "The download was cancelled while unpacking")
            }
            let status = lib.readNextHeader(reader, &entry)
            if status == ARCHIVE_EOF { break }
            guard status >= ARCHIVE_WARN, let entry else { throw invalid(archive, reader, lib) }
            guard let rawPath = lib.entryPathname(entry).map({ String(cString: $0) }) else {
                throw SDKException(.invalidArchive, "\(archive.lastPathComponent) holds an entry without a name")
            }
            let kind = Self.kind(of: entry, lib)
            let path = try Self.checkedPath(rawPath, kind: kind)
            guard let path else { continue }  // the archive's root folder itself

            _ = lib.entrySetPathname(entry, folder.appendingPathComponent(path).path)
            if case .hardlink(let target) = kind {
                _ = lib.entrySetHardlink(entry, folder.appendingPathComponent(Self.normalized(target)).path)
            }
            guard lib.writeHeader(writer, entry) >= ARCHIVE_WARN else {
                throw SDKException(
                    .invalidArchive,
                    "Cannot write '\(path)' from \(archive.lastPathComponent): \(message(writer, lib))"
                )
            }
            if kind == .file {
                files.append(path)
                var block: UnsafeRawPointer?
                var size = 0
                var offset: la_int64_t = 0
                while true {
                    let read = lib.readDataBlock(reader, &block, &size, &offset)
                    if read == ARCHIVE_EOF { break }
                    guard read >= ARCHIVE_WARN else { throw invalid(archive, reader, lib) }
                    written += Int64(size)
                    if let maxBytes, written > maxBytes {
                        throw SDKException(
                            .insufficientStorage,
                            "\(archive.lastPathComponent) unpacks to more than the \(maxBytes) bytes of space left",
                            recovery:
                                "Free some space (RunAnywhere.deleteModel, cleanTempFiles) or raise the storage limit"
                        )
                    }
                    guard lib.writeDataBlock(writer, block, size, offset) >= ARCHIVE_WARN else {
                        let code: SDKException.Code =
                            lib.errno(writer) == ENOSPC ? .insufficientStorage : .fileSystemError
                        throw SDKException(
                            code,
                            "Cannot write '\(path)' from \(archive.lastPathComponent): \(message(writer, lib))"
                        )
                    }
                    if cancel?.isCancelled == true {
                        throw SDKException(.downloadCancelled, "The download was cancelled while unpacking")
                    }
                }
            }
            guard lib.writeFinishEntry(writer) >= ARCHIVE_WARN else {
                throw SDKException(
                    .fileSystemError,
                    "Cannot finish '\(path)' from \(archive.lastPathComponent): \(message(writer, lib))"
                )
            }
            progress(min(1, Double(lib.filterBytes(reader, -1)) / Double(archiveSize)))
        }
        progress(1)
        return files
    }

    /// The path an entry may be written at, relative to the folder; `nil` for the root
    /// itself (`./`). Throws `.unsafeArchive` for anything that would land outside.
    static func checkedPath(_ raw: String, kind: EntryKind) throws(SDKException) -> String? {
        func refuse(_ why: String) -> SDKException {
            SDKException(
                .unsafeArchive,
                "The archive entry '\(raw)' \(why); nothing was extracted",
                recovery: "The archive is malformed or malicious: get the model from a trusted source"
            )
        }
        if raw.hasPrefix("/") || raw.hasPrefix("\\") || raw.dropFirst().hasPrefix(":") {
            throw refuse("has an absolute path")
        }
        if raw.contains("\0") { throw refuse("has a NUL in its name") }
        let parts = components(raw)
        if parts.contains("..") { throw refuse("climbs out of the model's folder with '..'") }
        if parts.isEmpty {
            guard kind == .directory else { throw refuse("has no usable name") }
            return nil
        }
        switch kind {
        case .file, .directory:
            break
        case .symlink(let target):
            if target.hasPrefix("/") || target.hasPrefix("\\") {
                throw refuse("is a link to the absolute path '\(target)'")
            }
            // Resolve the target from the link's own folder; it must never rise above the root.
            var depth = parts.count - 1
            for part in components(target) {
                depth += part == ".." ? -1 : 1
                if depth < 0 { throw refuse("is a link to '\(target)', outside the model's folder") }
            }
        case .hardlink(let target):
            if target.hasPrefix("/") || components(target).contains("..") || components(target).isEmpty {
                throw refuse("is a hard link to '\(target)', outside the model's folder")
            }
        case .other(let what):
            throw refuse("is a \(what), which a model never needs")
        }
        return parts.joined(separator: "/")
    }

    /// Path components without empty and `.` parts; backslashes count as separators so a
    /// Windows-made `..\\x` is caught too.
    private static func components(_ path: String) -> [String] {
        path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init).filter { $0 != "." }
    }

    private static func normalized(_ path: String) -> String { components(path).joined(separator: "/") }

    private static func kind(of entry: OpaquePointer, _ lib: ArchiveLibrary) -> EntryKind {
        if let hardlink = lib.entryHardlink(entry) {
            return .hardlink(target: String(cString: hardlink))
        }
        // The file-type bits of a mode, as tar and zip store them on every platform.
        switch lib.entryFiletype(entry) & 0o170000 {
        case 0o100000: return .file
        case 0o040000: return .directory
        case 0o120000: return .symlink(target: lib.entrySymlink(entry).map { String(cString: $0) } ?? "")
        case 0o020000, 0o060000: return .other("device file")
        case 0o010000: return .other("FIFO")
        case 0o140000: return .other("socket")
        default: return .other("file of unknown type")
        }
    }

    private static func message(_ handle: OpaquePointer, _ lib: ArchiveLibrary) -> String {
        lib.errorString(handle).map { String(cString: $0) } ?? "unknown error"
    }

    private static func invalid(_ archive: URL, _ reader: OpaquePointer, _ lib: ArchiveLibrary) -> SDKException {
        SDKException(
            .invalidArchive,
            "\(archive.lastPathComponent) is not a readable archive: \(message(reader, lib))",
            recovery: "Check the archive type given at registration and that the file is complete"
        )
    }
}
