/// Runs blocking work (a transfer, hashing a file, unpacking an archive) on a thread of its
/// own and awaits it, so the cooperative pool (two threads on a two-core machine) never
/// waits on disk or network. When the system starts no thread, the work runs here instead:
/// late, but not lost.
func runOnDetachedThread<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        do throws(SDKException) {
            try NativeThread.detach(name: name) { continuation.resume(returning: body()) }
        } catch {
            continuation.resume(returning: body())
        }
    }
}
