/// What to load as the vision-language model (the original SDK's `VLMConfiguration`).
///
/// ```swift
/// try await RunAnywhere.loadVLMModel(.defaults(modelId: "smolvlm-256m"))
/// ```
public struct VLMConfiguration: Sendable, Codable, Equatable {
    /// The registered model's id.
    public var modelId: String
    /// Context length in tokens; `nil` uses the model's or the SDK's default.
    public var contextLength: Int?
    /// Decoding threads; `nil` picks from the machine.
    public var threads: Int?

    /// A configuration for `modelId`.
    public init(modelId: String, contextLength: Int? = nil, threads: Int? = nil) {
        self.modelId = modelId
        self.contextLength = contextLength
        self.threads = threads
    }

    /// The default configuration for `modelId`.
    public static func defaults(modelId: String) -> VLMConfiguration { VLMConfiguration(modelId: modelId) }
}

extension RunAnywhereSDK {
    /// Loads the model `configuration` names, as
    /// ``loadVLMModel(_:contextLength:threads:)`` does.
    public func loadVLMModel(_ configuration: VLMConfiguration) async throws(SDKException) {
        try await loadVLMModel(
            configuration.modelId,
            contextLength: configuration.contextLength,
            threads: configuration.threads
        )
    }
}

extension RunAnywhere {
    /// Loads the model `configuration` names.
    ///
    /// Calls ``RunAnywhereSDK/loadVLMModel(_:)-(VLMConfiguration)`` on the shared instance.
    public static func loadVLMModel(_ configuration: VLMConfiguration) async throws(SDKException) {
        try await sdk().loadVLMModel(configuration)
    }
}
