import Crypto

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

/// `open(2)` with a mode (Swift cannot call the variadic C function through a closure).
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

/// File operations the registry relies on: atomic replacement and moves that work across
/// file systems. Every failure is an ``SDKException`` with `.fileSystemError`.
package enum FileSystem {
    /// Writes `data` to a temp file beside `url`, then renames it over `url`, so a reader
    /// sees either the old or the new content, never half of one. With `permissions`, the
    /// file has those permissions from its first byte and is synced before the rename.
    static func atomicWrite(_ data: Data, to url: URL, permissions: mode_t? = nil) throws(SDKException) {
        let dir = url.deletingLastPathComponent()
        let temp = dir.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            if let permissions {
                try writeNewFile(data, to: temp, permissions: permissions)
            } else {
                try data.write(to: temp)
            }
            if rename(temp.path, url.path) != 0 {
                throw POSIXError(errno: errno)
            }
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw SDKException(.fileSystemError, "Cannot write \(url.path)", underlying: error)
        }
    }

    /// Writes `data` to `url` unless a file is there already; returns whether it wrote.
    /// Writers racing for one name agree: each links a complete, synced file into place
    /// (link(2) fails when the name exists) and exactly one succeeds.
    @discardableResult
    static func writeIfAbsent(_ data: Data, to url: URL, permissions: mode_t) throws(SDKException) -> Bool {
        let temp = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString).tmp"
        )
        defer { unlink(temp.path) }
        do {
            try writeNewFile(data, to: temp, permissions: permissions)
            guard link(temp.path, url.path) == 0 else {
                if errno == EEXIST { return false }
                throw POSIXError(errno: errno)
            }
            return true
        } catch {
            throw SDKException(.fileSystemError, "Cannot write \(url.path)", underlying: error)
        }
    }

    /// Creates `url` (which must not exist) with `permissions`, writes `data` and syncs it.
    private static func writeNewFile(_ data: Data, to url: URL, permissions: mode_t) throws {
        let descriptor = openFile(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw POSIXError(errno: errno) }
        defer { close(descriptor) }
        let failure = data.withUnsafeBytes { writeFully(descriptor, $0) }
        guard failure == 0 else { throw POSIXError(errno: failure) }
        guard fsync(descriptor) == 0 else { throw POSIXError(errno: errno) }
    }

    /// Copies or moves `source` to `destination` (which must not exist).
    ///
    /// A move is a rename when both are on one file system; otherwise a copy followed by
    /// removing the source.
    static func transfer(_ source: URL, to destination: URL, move: Bool) throws(SDKException) {
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            if move {
                if rename(source.path, destination.path) == 0 { return }
                try fm.copyItem(at: source, to: destination)
                try fm.removeItem(at: source)
            } else {
                try fm.copyItem(at: source, to: destination)
            }
        } catch {
            throw SDKException(
                .fileSystemError,
                "Cannot \(move ? "move" : "copy") \(source.path) to \(destination.path)",
                underlying: error
            )
        }
    }

    /// Size of a file or, for a folder, of all regular files inside it (links not followed).
    static func allocatedSize(of url: URL) -> Int64 {
        guard let top = status(url.path, followingLinks: true) else { return 0 }
        guard top.isDirectory else { return top.isRegularFile ? top.size : 0 }
        // By path with lstat: the URL enumerator and its resource values are full Foundation's.
        guard let items = try? FileManager.default.subpathsOfDirectory(atPath: url.path) else { return 0 }
        return items.reduce(into: Int64(0)) { total, item in
            if let entry = status(url.path + "/" + item, followingLinks: false), entry.isRegularFile {
                total += entry.size
            }
        }
    }

    /// What `stat(2)` (or `lstat(2)`) says of a path: its kind and size; nil if it does not exist.
    package static func status(
        _ path: String,
        followingLinks: Bool = true
    ) -> (isDirectory: Bool, isRegularFile: Bool, size: Int64)? {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        return (kind == S_IFDIR, kind == S_IFREG, Int64(info.st_size))
    }

    /// The size of a regular file (links followed); nil for anything else.
    package static func fileSize(_ url: URL) -> Int64? {
        status(url.path).flatMap { $0.isRegularFile ? $0.size : nil }
    }

    /// Up to `count` bytes from the start of a file; nil when it cannot be opened or read.
    static func leadingBytes(of url: URL, count: Int) -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let filled = bytes.withUnsafeMutableBytes { readFully(descriptor, $0) }
        return filled < 0 ? nil : Array(bytes.prefix(filled))
    }

    /// A file's bytes mapped read-only: pages are read when touched, shared with the page
    /// cache, and unmapped when the data is released. An empty file is empty data.
    ///
    /// - Throws: `POSIXError` when the file cannot be opened, read or mapped.
    static func mapped(_ path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(errno: errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXError(errno: errno) }
        let size = Int(info.st_size)
        guard size > 0 else { return Data() }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw POSIXError(errno: errno) }
        return Data(
            bytesNoCopy: address,
            count: size,
            deallocator: .custom { pointer, count in munmap(pointer, count) }
        )
    }

    /// A file's bytes, when it holds at most `limit` of them: for the SDK's own small files
    /// (the registry, sidecars), which a damaged or planted file must not make it read whole.
    ///
    /// - Throws: `POSIXError` when it cannot be read; `FileTooLarge` past the limit.
    static func contents(of url: URL, limit: Int) throws -> Data {
        if let size = fileSize(url), size > Int64(limit) { throw FileTooLarge(size: size, limit: limit) }
        return try Data(contentsOf: url)
    }

    /// A file over the size ``contents(of:limit:)`` allows.
    struct FileTooLarge: Error, CustomStringConvertible {
        let size: Int64
        let limit: Int
        var description: String { "the file has \(size) bytes, more than the \(limit) expected at most" }
    }

    /// Whether `item` is `folder` or lies below it, by their standardized paths (no file is read).
    static func isWithin(_ item: URL, folder: URL) -> Bool {
        let item = item.standardizedFileURL.path
        let folder = folder.standardizedFileURL.path
        return item == folder || item.hasPrefix(folder + "/")
    }

    /// Whether `url` is a folder.
    static func isDirectory(_ url: URL) -> Bool {
        status(url.path)?.isDirectory ?? false
    }

    /// Whether `url` is a regular file that can be read.
    static func isReadableFile(_ url: URL) -> Bool {
        status(url.path)?.isDirectory == false && FileManager.default.isReadableFile(atPath: url.path)
    }

    /// The SHA-256 of a file, lowercase hex, read in 1 MiB pieces so memory stays flat.
    static func sha256(
        of url: URL,
        cancel: CancellationFlag? = nil,
        progress: (Int64) -> Void = { _ in }
    ) throws(SDKException) -> String {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else {
            throw SDKException(.fileSystemError, "Cannot open \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var done: Int64 = 0
        while true {
            let n = readFully(fd, buffer)
            guard n >= 0 else {
                throw SDKException(.fileSystemError, "Cannot read \(url.path): \(String(cString: strerror(Int32(-n))))")
            }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            done += Int64(n)
            progress(done)
            if cancel?.isCancelled == true {
                throw SDKException(
                    .downloadCancelled,
                    "The download was cancelled while checking \(url.lastPathComponent)"
                )
            }
        }
        return hasher.finalize().hexEncoded
    }

    /// Size and free space of the volume holding `url` (or its nearest existing parent).
    static func volumeSpace(at url: URL) -> DeviceStorageInfo {
        var path = url
        while !FileManager.default.fileExists(atPath: path.path), path.path != "/" {
            path = path.deletingLastPathComponent()
        }
        var stats = statvfs()
        guard statvfs(path.path, &stats) == 0 else { return DeviceStorageInfo(totalBytes: 0, freeBytes: 0) }
        let unit = Int64(stats.f_frsize)
        return DeviceStorageInfo(totalBytes: Int64(stats.f_blocks) * unit, freeBytes: Int64(stats.f_bavail) * unit)
    }

    /// Deletes what is inside `folder` except the names kept; returns the bytes freed.
    @discardableResult
    static func removeContents(of folder: URL, keeping keep: (URL) -> Bool = { _ in false }) -> Int64 {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var freed: Int64 = 0
        for item in names.map({ folder.appendingPathComponent($0) }) where !keep(item) {
            let size = allocatedSize(of: item)
            if (try? fm.removeItem(at: item)) != nil { freed += size }
        }
        return freed
    }
}
