/// A prompt and its options in one value: the original SDK's request shape for
/// ``RunAnywhere/generate(_:)-(LLMGenerateRequest)``.
public struct LLMGenerateRequest: Sendable, Codable, Equatable {
    /// The prompt.
    public var prompt: String
    /// How to generate.
    public var options: LLMGenerationOptions

    /// A request for `prompt`.
    public init(prompt: String, options: LLMGenerationOptions = LLMGenerationOptions()) {
        self.prompt = prompt
        self.options = options
    }
}

extension LLMGenerationOptions {
    /// The default options (the original SDK's factory).
    public static func defaults() -> LLMGenerationOptions { LLMGenerationOptions() }
}

extension RunAnywhereSDK {
    /// ``generate(_:options:)`` on a request.
    public func generate(_ request: LLMGenerateRequest) async throws(SDKException) -> LLMGenerationResult {
        try await generate(request.prompt, options: request.options)
    }

    /// ``generateStream(_:options:)`` on a request, in the original SDK's shape: a stream
    /// that does not throw; an error ends it (and is logged).
    public func generateStream(_ request: LLMGenerateRequest) async throws(SDKException) -> AsyncStream<LLMStreamEvent>
    {
        try await generateStream(request.prompt, options: request.options).endingOnError(category: "LLM")
    }
}

extension RunAnywhere {
    /// Generates text for a request.
    ///
    /// Calls ``RunAnywhereSDK/generate(_:)-(LLMGenerateRequest)`` on the shared instance.
    public static func generate(_ request: LLMGenerateRequest) async throws(SDKException) -> LLMGenerationResult {
        try await sdk().generate(request)
    }

    /// Streams the generation for a request; an error ends the stream (and is logged).
    ///
    /// Calls ``RunAnywhereSDK/generateStream(_:)-(LLMGenerateRequest)`` on the shared instance.
    public static func generateStream(
        _ request: LLMGenerateRequest
    ) async throws(SDKException) -> AsyncStream<LLMStreamEvent> {
        try await sdk().generateStream(request)
    }
}
