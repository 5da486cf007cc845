internal import CArchive
import Foundation

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
    static var libraryVersion: String { String(cString: archive_version_details()) }

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
        guard let reader = archive_read_new() else { throw SDKException(.internalError, "libarchive could not start") }
        defer { archive_read_free(reader) }
        archive_read_support_filter_gzip(reader)
        archive_read_support_filter_bzip2(reader)
        archive_read_support_filter_xz(reader)
        switch type {
        case .zip: archive_read_support_format_zip(reader)
        case .tarGz, .tarBz2, .tarXz:
            archive_read_support_format_tar(reader)
            archive_read_support_format_gnutar(reader)
        }
        let archiveSize = max(1, FileSystem.allocatedSize(of: archive))
        guard archive_read_open_filename(reader, archive.path, 1 << 20) == ARCHIVE_OK else {
            throw invalid(archive, reader)
        }
        guard let writer = archive_write_disk_new() else {
            throw SDKException(.internalError, "libarchive could not start")
        }
        defer { archive_write_free(writer) }
        archive_write_disk_set_options(
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
            let status = archive_read_next_header(reader, &entry)
            if status == ARCHIVE_EOF { break }
            guard status >= ARCHIVE_WARN, let entry else { throw invalid(archive, reader) }
            guard let rawPath = archive_entry_pathname(entry).map({ String(cString: $0) }) else {
                throw SDKException(.invalidArchive, "\(archive.lastPathComponent) holds an entry without a name")
            }
            let kind = Self.kind(of: entry)
            let path = try Self.checkedPath(rawPath, kind: kind)
            guard let path else { continue }  // the archive's root folder itself

            archive_entry_set_pathname(entry, folder.appendingPathComponent(path).path)
            if case .hardlink(let target) = kind {
                archive_entry_set_hardlink(entry, folder.appendingPathComponent(Self.normalized(target)).path)
            }
            guard archive_write_header(writer, entry) >= ARCHIVE_WARN else {
                throw SDKException(
                    .invalidArchive,
                    "Cannot write '\(path)' from \(archive.lastPathComponent): \(message(writer))"
                )
            }
            if kind == .file {
                files.append(path)
                var block: UnsafeRawPointer?
                var size = 0
                var offset: la_int64_t = 0
                while true {
                    let read = archive_read_data_block(reader, &block, &size, &offset)
                    if read == ARCHIVE_EOF { break }
                    guard read >= ARCHIVE_WARN else { throw invalid(archive, reader) }
                    written += Int64(size)
                    if let maxBytes, written > maxBytes {
                        throw SDKException(
                            .insufficientStorage,
                            "\(archive.lastPathComponent) unpacks to more than the \(maxBytes) bytes of space left",
                            recovery:
                                "Free some space (RunAnywhere.deleteModel, cleanTempFiles) or raise the storage limit"
                        )
                    }
                    guard archive_write_data_block(writer, block, size, offset) >= ARCHIVE_WARN else {
                        let code: SDKException.Code =
                            archive_errno(writer) == ENOSPC ? .insufficientStorage : .fileSystemError
                        throw SDKException(
                            code,
                            "Cannot write '\(path)' from \(archive.lastPathComponent): \(message(writer))"
                        )
                    }
                    if cancel?.isCancelled == true {
                        throw SDKException(.downloadCancelled, "The download was cancelled while unpacking")
                    }
                }
            }
            guard archive_write_finish_entry(writer) >= ARCHIVE_WARN else {
                throw SDKException(
                    .fileSystemError,
                    "Cannot finish '\(path)' from \(archive.lastPathComponent): \(message(writer))"
                )
            }
            progress(min(1, Double(archive_filter_bytes(reader, -1)) / Double(archiveSize)))
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

    private static func kind(of entry: OpaquePointer) -> EntryKind {
        if let hardlink = archive_entry_hardlink(entry) {
            return .hardlink(target: String(cString: hardlink))
        }
        // The file-type bits of a mode, as tar and zip store them on every platform.
        switch archive_entry_filetype(entry) & 0o170000 {
        case 0o100000: return .file
        case 0o040000: return .directory
        case 0o120000: return .symlink(target: archive_entry_symlink(entry).map { String(cString: $0) } ?? "")
        case 0o020000, 0o060000: return .other("device file")
        case 0o010000: return .other("FIFO")
        case 0o140000: return .other("socket")
        default: return .other("file of unknown type")
        }
    }

    private static func message(_ handle: OpaquePointer) -> String {
        archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
    }

    private static func invalid(_ archive: URL, _ reader: OpaquePointer) -> SDKException {
        SDKException(
            .invalidArchive,
            "\(archive.lastPathComponent) is not a readable archive: \(message(reader))",
            recovery: "Check the archive type given at registration and that the file is complete"
        )
    }
}
