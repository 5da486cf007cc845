/// Where the SDK runs a model that is both on this device and on a remote server
/// (``RunAnywhereSDK/registerRemoteModel(id:baseURL:remoteModelName:apiKey:apiKeySecret:category:timeoutSeconds:)``).
///
/// A model with only local files always runs locally and a remote-only model always
/// remotely, except that ``localOnly`` refuses a remote-only model and ``remoteOnly`` a
/// local-only one. Every result says where it ran (``ExecutionTarget``).
///
/// ```swift
/// sdk.routingPolicy = .preferRemote   // the server when it answers, this device when offline
/// let result = try await sdk.generate("Hello")
/// print(result.executedOn)            // .remote, or .local when the server was down
/// ```
public enum RoutingPolicy: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Never leave the device; a remote-only model is an error.
    case localOnly
    /// Always the server; when it cannot be reached the call fails with `remote_unreachable`.
    case remoteOnly
    /// This device when the model's files are here and it fits the memory budget
    /// (``RoutingConfiguration/memoryBudgetBytes``, else the hardware profile's available
    /// memory), else the server; this device again while the server is down.
    case preferLocal
    /// The server when it answers; this device when it is unreachable, without an error.
    case preferRemote
    /// Speech to text on this device, re-run on the server when the local transcript's
    /// confidence is below `threshold` (in [0, 1]); other capabilities as ``preferLocal``.
    case escalateBelowConfidence(Float)

    /// `local-only`, `remote-only`, `prefer-local`, `prefer-remote` or `escalate-below-<threshold>`.
    public var description: String {
        switch self {
        case .localOnly: "local-only"
        case .remoteOnly: "remote-only"
        case .preferLocal: "prefer-local"
        case .preferRemote: "prefer-remote"
        case .escalateBelowConfidence(let threshold): "escalate-below-\(threshold)"
        }
    }

    /// Parses the names ``description`` gives.
    ///
    /// - Throws: `.invalidInput` naming the accepted values.
    public init(parsing text: String) throws(SDKException) {
        switch text.lowercased() {
        case "local-only", "local": self = .localOnly
        case "remote-only", "remote": self = .remoteOnly
        case "prefer-local": self = .preferLocal
        case "prefer-remote": self = .preferRemote
        case let other where other.hasPrefix("escalate-below-"):
            guard let threshold = Float(other.dropFirst("escalate-below-".count)), (0...1).contains(threshold) else {
                throw SDKException(
                    .invalidInput,
                    "Invalid escalation threshold in '\(text)': expected a number in [0, 1]"
                )
            }
            self = .escalateBelowConfidence(threshold)
        default:
            throw SDKException(
                .invalidInput,
                "Unknown routing policy '\(text)'",
                recovery: "Use local-only, remote-only, prefer-local, prefer-remote or escalate-below-<0…1>"
            )
        }
    }
}

/// Where a request ran.
public enum ExecutionTarget: String, Sendable, Codable, Equatable, CaseIterable {
    /// On this device, by a local engine.
    case local
    /// On a remote OpenAI-compatible server.
    case remote
}

/// How an SDK instance routes between this device and remote servers.
public struct RoutingConfiguration: Sendable, Equatable {
    /// The policy.
    public var policy: RoutingPolicy
    /// Memory a local model may take (file plus working memory, see
    /// ``HardwareProfile/fits(_:)``); `nil` uses the memory available now.
    public var memoryBudgetBytes: Int64?
    /// How long a server that could not be reached is skipped before it is tried again.
    public var retryUnreachableAfterSeconds: Double

    /// Creates a configuration.
    public init(
        policy: RoutingPolicy = .preferLocal,
        memoryBudgetBytes: Int64? = nil,
        retryUnreachableAfterSeconds: Double = 30
    ) {
        self.policy = policy
        self.memoryBudgetBytes = memoryBudgetBytes
        self.retryUnreachableAfterSeconds = retryUnreachableAfterSeconds
    }
}
