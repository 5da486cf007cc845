/// What to ask about an image, and how to generate the answer.
///
/// ```swift
/// var options = VLMGenerationOptions.defaults(prompt: "How many people are in the photo?")
/// options.generation.maxTokens = 64
/// let result = try await RunAnywhere.processImage(.fromFilePath("team.jpg"), options: options)
/// ```
public struct VLMGenerationOptions: Sendable, Codable, Equatable {
    /// The question or instruction about the image.
    public var prompt: String
    /// Sampling, length, stop sequences and the other text-generation settings.
    public var generation: LLMGenerationOptions

    /// The prompt a description uses when none is given.
    public static let describePrompt = "Describe this image."

    /// Creates options.
    public init(prompt: String = describePrompt, generation: LLMGenerationOptions = LLMGenerationOptions()) {
        self.prompt = prompt
        self.generation = generation
    }

    /// The default options with `prompt`.
    public static func defaults(prompt: String) -> VLMGenerationOptions {
        VLMGenerationOptions(prompt: prompt)
    }
}

/// The answer about an image: text, token counts (``LLMGenerationResult/imageTokens`` is what
/// the image became) and timings.
public typealias VLMResult = LLMGenerationResult
