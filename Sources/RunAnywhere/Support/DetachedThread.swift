import Foundation

/// Runs blocking work (a transfer, hashing a file, unpacking an archive) on a thread of its
/// own and awaits it, so the cooperative pool (two threads on a two-core machine) never
/// waits on disk or network.
func runOnDetachedThread<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.name = name
        thread.start()
    }
}
