import Crypto
import Foundation

/// `open(2)` with a mode (Swift cannot call the variadic C function through a closure).
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

/// File operations the registry relies on: atomic replacement and moves that work across
/// file systems. Every failure is an ``SDKException`` with `.fileSystemError`.
enum FileSystem {
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
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
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
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return true
        } catch {
            throw SDKException(.fileSystemError, "Cannot write \(url.path)", underlying: error)
        }
    }

    /// Creates `url` (which must not exist) with `permissions`, writes `data` and syncs it.
    private static func writeNewFile(_ data: Data, to url: URL, permissions: mode_t) throws {
        let descriptor = openFile(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let failure = data.withUnsafeBytes { writeFully(descriptor, $0) }
        guard failure == 0 else { throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
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

    /// Size of a file or, for a folder, of all regular files inside it.
    static func allocatedSize(of url: URL) -> Int64 {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDir) else { return 0 }
        if !isDir.boolValue {
            return (try? fm.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        var total: Int64 = 0
        if let items = fm.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) {
            for case let item as URL in items {
                let values = try? item.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
                if values?.isRegularFile == true { total += Int64(values?.fileSize ?? 0) }
            }
        }
        return total
    }

    /// Whether `url` is a folder.
    static func isDirectory(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue
    }

    /// Whether `url` is a regular file that can be read.
    static func isReadableFile(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && !isDir.boolValue
            && FileManager.default.isReadableFile(atPath: url.path)
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
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw SDKException(.fileSystemError, "Cannot read \(url.path): \(String(cString: strerror(errno)))")
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
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
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
        guard let items = try? fm.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else { return 0 }
        var freed: Int64 = 0
        for item in items where !keep(item) {
            let size = allocatedSize(of: item)
            if (try? fm.removeItem(at: item)) != nil { freed += size }
        }
        return freed
    }
}
