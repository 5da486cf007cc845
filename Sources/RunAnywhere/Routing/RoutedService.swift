import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two sides of a model that runs here and on a remote server, each loaded on first
/// use and kept until the model is unloaded.
///
/// Capabilities hold one of these in their model lifecycle through a routed service of
/// their own protocol (``RoutedLLMService`` and its siblings), and ask the
/// ``ModelRouter`` which side runs each request.
final class RoutedService<Service: Sendable>: Sendable {
    typealias Loader = @Sendable (ModelInfo) async throws -> Service

    /// The registry entry (local framework and files, plus ``ModelInfo/remote``).
    let model: ModelInfo
    let router: ModelRouter
    private let loaders: [ExecutionTarget: Loader]
    private let unloader: @Sendable (Service) async -> Void
    private let sides = Mutex<[ExecutionTarget: Task<Service, any Error>]>([:])

    init(
        model: ModelInfo,
        router: ModelRouter,
        local: Loader?,
        remote: @escaping Loader,
        unloader: @escaping @Sendable (Service) async -> Void
    ) {
        self.model = model
        self.router = router
        var loaders: [ExecutionTarget: Loader] = [.remote: remote]
        if ModelRouter.hasLocal(model), let local { loaders[.local] = local }
        self.loaders = loaders
        self.unloader = unloader
    }

    /// Makes the two sides of `model` and loads the one the policy would use first.
    static func load(
        model: ModelInfo,
        router: ModelRouter,
        local: Loader?,
        remote: @escaping Loader,
        unloader: @escaping @Sendable (Service) async -> Void
    ) async throws(SDKException) -> (sides: RoutedService, first: Service) {
        let sides = RoutedService(model: model, router: router, local: local, remote: remote, unloader: unloader)
        let first = try await sides.loadFirst()
        return (sides, try await sides.service(for: first))
    }

    /// Loads the side the policy would use first, so a bad endpoint or file fails the load.
    /// Under a remote-first plan an unreachable server does not fail it when this device
    /// can run the model.
    func loadFirst() async throws(SDKException) -> ExecutionTarget {
        try await run(try router.targets(for: model)) { target throws(SDKException) in
            _ = try await service(for: target)
            return target
        }
    }

    /// The side `target`, loading it on first use; concurrent callers share one load.
    func service(for target: ExecutionTarget) async throws(SDKException) -> Service {
        guard let loader = loaders[target] else {
            throw SDKException(
                .invalidConfiguration,
                target == .local
                    ? "Model '\(model.id)' has no local files" : "Model '\(model.id)' has no remote endpoint"
            )
        }
        let model = self.model
        let router = self.router
        let task = sides.withLock { sides in
            if let task = sides[target] { return task }
            let task = Task { () async throws -> Service in
                try await loader(target == .remote ? try router.remoteModel(model) : model)
            }
            sides[target] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed load is forgotten, so the next request tries again.
            sides.withLock { sides in
                if sides[target] == task { sides[target] = nil }
            }
            throw SDKException.wrap(
                error,
                as: .modelLoadFailed,
                "Loading the \(target.rawValue) side of '\(model.id)' failed"
            )
        }
    }

    /// Runs a request on the targets of `plan` in turn until one succeeds. A remote side
    /// that cannot be reached is marked so, and the next target runs the request, unless
    /// `shown` is set: the caller has seen output already. A remote side that answers is
    /// marked reachable.
    nonisolated(nonsending) func run<T, E: Error>(
        _ plan: [ExecutionTarget],
        shown: AtomicFlag? = nil,
        _ body: (ExecutionTarget) async throws(E) -> T
    ) async throws(E) -> T {
        for (index, target) in plan.enumerated() {
            do {
                let result = try await body(target)
                if target == .remote { router.markReachable(model) }
                return result
            } catch {
                guard target == .remote, let failure = error as? SDKException, ModelRouter.isUnreachable(failure)
                else { throw error }
                router.markUnreachable(model, because: failure)
                guard index < plan.count - 1, shown?.isSet != true else { throw error }
            }
        }
        // `targets(for:)` never plans nothing.
        preconditionFailure("An empty routing plan for '\(model.id)'")
    }

    /// Unloads both sides.
    func unload() async {
        let tasks = sides.withLock { sides in
            defer { sides = [:] }
            return Array(sides.values)
        }
        for task in tasks {
            if let service = try? await task.value { await unloader(service) }
        }
    }
}
