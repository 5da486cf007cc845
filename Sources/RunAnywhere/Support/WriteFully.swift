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
