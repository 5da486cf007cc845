#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `bytes` to `descriptor`, again after interrupted and partial writes.
///
/// - Returns: 0, or the `errno` of the write that failed (`EIO` for one that wrote nothing);
///   what came before it was written.
package func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    guard var next = bytes.baseAddress else { return 0 }
    var left = bytes.count
    while left > 0 {
        let written = write(descriptor, next, left)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return written < 0 ? errno : EIO }
        next += written
        left -= written
    }
    return 0
}

/// Reads from `descriptor` until `buffer` is full or the file ends, again after interrupted
/// and partial reads.
///
/// - Returns: the bytes read (fewer than the buffer holds only at the end of the file), or the
///   `errno` of the read that failed, negated.
package func readFully(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var filled = 0
    while filled < buffer.count {
        let count = read(descriptor, base + filled, buffer.count - filled)
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { return -Int(errno) }
        if count == 0 { break }
        filled += count
    }
    return filled
}
