import Foundation
import RunAnywhere
import RunAnywhereTesting

/// A fresh SDK instance on the deterministic backend with its models registered, in its own
/// home; always shut down and deleted. `modules` join the deterministic backend (the remote
/// engines' tests add `RemoteModule()`).
@discardableResult
public func withDeterministicSDK<T>(
    timing: DeterministicBackend.Timing = .instant,
    adding modules: [any BackendModule] = [],
    _ body: (RunAnywhereSDK) async throws -> T
) async throws -> T {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-det-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    let sdk = try RunAnywhereSDK(
        home: home,
        environment: .development,
        modules: [DeterministicBackend(timing: timing)] + modules
    )
    do {
        try registerDeterministicModels(in: sdk)
        let result = try await body(sdk)
        await sdk.shutdown()
        return result
    } catch {
        await sdk.shutdown()
        throw error
    }
}
