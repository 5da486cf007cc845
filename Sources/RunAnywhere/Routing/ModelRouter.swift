import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides, request by request, whether a model runs on this device or on its remote
/// server, and remembers servers that could not be reached.
///
/// One per SDK instance. A server that fails to answer (connection refused, timeout, a
/// stream cut off) is skipped for ``RoutingConfiguration/retryUnreachableAfterSeconds``;
/// any answer from it clears that.
final class ModelRouter: Sendable {
    private struct State {
        var configuration = RoutingConfiguration()
        var unreachableUntil: [URL: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    private let secrets: @Sendable () throws(SDKException) -> SecureStore
    private let availableMemory: @Sendable () -> Int64
    private let logger = SDKLogger(category: "Routing")

    init(
        secrets: @escaping @Sendable () throws(SDKException) -> SecureStore,
        availableMemory: @escaping @Sendable () -> Int64
    ) {
        self.secrets = secrets
        self.availableMemory = availableMemory
    }

    var configuration: RoutingConfiguration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// Whether `model` has files here and a local backend framework.
    static func hasLocal(_ model: ModelInfo) -> Bool {
        model.framework != .remote && model.localPath != nil
    }

    /// The targets to try for `model`, in order: the first that works runs the request;
    /// a later one is tried only when an earlier one could not be reached.
    ///
    /// - Throws: `.modelFileNotFound` for a remote-only model under ``RoutingPolicy/localOnly``,
    ///   `.invalidConfiguration` for a model with no remote endpoint under ``RoutingPolicy/remoteOnly``.
    func targets(for model: ModelInfo) throws(SDKException) -> [ExecutionTarget] {
        let configuration = self.configuration
        let local = Self.hasLocal(model)
        let remote = model.remote != nil
        switch configuration.policy {
        case .localOnly:
            guard local else {
                throw SDKException(
                    .modelFileNotFound,
                    "Model '\(model.id)' has no local files and the routing policy is local-only",
                    recovery: "Download or import the model, or choose another routing policy"
                )
            }
            return [.local]
        case .remoteOnly:
            guard remote else {
                throw SDKException(
                    .invalidConfiguration,
                    "Model '\(model.id)' has no remote endpoint and the routing policy is remote-only",
                    recovery: "Register one: registerRemoteModel(id: \"\(model.id)\", baseURL:…, remoteModelName:…)"
                )
            }
            return [.remote]
        case .preferRemote:
            guard local, remote else { return local ? [.local] : [.remote] }
            return isUnreachable(model) ? [.local] : [.remote, .local]
        case .preferLocal, .escalateBelowConfidence:
            guard local, remote else { return local ? [.local] : [.remote] }
            if fitsBudget(model, budget: configuration.memoryBudgetBytes) || isUnreachable(model) { return [.local] }
            return [.remote, .local]
        }
    }

    /// Whether the local copy of `model` fits the memory budget: its files plus working memory.
    func fitsBudget(_ model: ModelInfo, budget: Int64?) -> Bool {
        var size = model.sizeBytes ?? 0
        if size <= 0, let path = model.localPath { size = FileSystem.allocatedSize(of: path) }
        guard size > 0 else { return false }
        let needed = Double(size) * (1 + HardwareProfile.workingMemoryShare)
        return needed <= Double(budget ?? availableMemory())
    }

    /// The remote side of `model`, as its remote backend loads it: framework ``InferenceFramework/remote``,
    /// no local file, and the API key read from the secure store.
    func remoteModel(_ model: ModelInfo) throws(SDKException) -> ModelInfo {
        guard var endpoint = model.remote else {
            throw SDKException(.invalidConfiguration, "Model '\(model.id)' has no remote endpoint")
        }
        if let name = endpoint.apiKeySecret {
            guard let key = try secrets().string(for: name) else {
                throw SDKException(
                    .invalidAPIKey,
                    "The API key of remote model '\(model.id)' is not in the secure store (secret '\(name)')",
                    recovery: "Store it: `runanywhere secrets set \(name)`"
                )
            }
            endpoint.apiKey = key
        }
        var remote = model
        remote.framework = .remote
        remote.localPath = nil
        remote.remote = endpoint
        return remote
    }

    /// Whether `model`'s server is being skipped after failing to answer.
    func isUnreachable(_ model: ModelInfo) -> Bool {
        guard let url = model.remote?.baseURL else { return false }
        return state.withLock { state in
            guard let until = state.unreachableUntil[url] else { return false }
            if until > .now { return true }
            state.unreachableUntil[url] = nil
            return false
        }
    }

    /// Records that `model`'s server could not be reached.
    func markUnreachable(_ model: ModelInfo, because error: SDKException) {
        guard let url = model.remote?.baseURL else { return }
        state.withLock { state in
            let seconds = state.configuration.retryUnreachableAfterSeconds
            state.unreachableUntil[url] = .now + .milliseconds(Int64(max(0, seconds) * 1000))
        }
        logger.warning("Remote server of '\(model.id)' unreachable, using this device for now: \(error.message)")
    }

    /// Records that `model`'s server answered.
    func markReachable(_ model: ModelInfo) {
        guard let url = model.remote?.baseURL else { return }
        state.withLock { _ = $0.unreachableUntil.removeValue(forKey: url) }
    }

    /// Whether a failure means the server could not be reached (so another target may run
    /// the request), rather than that it refused the request.
    static func isUnreachable(_ error: SDKException) -> Bool {
        error.code == .remoteUnreachable || error.code == .remoteTimeout
    }
}

extension InferenceFramework {
    /// Models served by a remote OpenAI-compatible server (``RemoteEndpoint``); the
    /// `RunAnywhereRemote` module runs them.
    public static let remote = InferenceFramework("remote")
}
