import Synchronization

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

/// An exclusive `flock` on a file, held until ``release()`` or deinit.
///
/// Two processes sharing one SDK home (an app and the CLI) must not write the same partial
/// download, and start-up cleanup in one must not delete another's work in progress.
package final class FileLock: Sendable {
    private let fd: Int32
    private let released = Atomic<Bool>(false)

    /// Takes the lock without waiting; `nil` when another holder has it.
    package init?(_ url: URL) {
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    /// Whether someone holds the lock on `url` right now.
    static func isHeld(_ url: URL) -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return FileLock(url) == nil
    }

    /// Lets the next holder in; later calls do nothing.
    package func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { close(fd) }
    }

    deinit { release() }
}
