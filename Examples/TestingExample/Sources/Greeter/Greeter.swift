import RunAnywhere

/// The app code under test: a voice greeter that hears a name and answers with a greeting.
public struct Greeter: Sendable {
    let sdk: RunAnywhereSDK

    /// A greeter on `sdk`, whose speech and language models are already loaded.
    public init(sdk: RunAnywhereSDK) {
        self.sdk = sdk
    }

    /// Transcribes `audio` and writes a greeting for whoever spoke, in at most `maxTokens` tokens.
    public func greet(_ audio: PCMAudio, maxTokens: Int = 16) async throws -> (heard: String, reply: String) {
        let heard = try await sdk.transcribe(audio).text
        let reply = try await sdk.generate(
            "Greet \(heard) warmly.",
            options: LLMGenerationOptions(maxTokens: maxTokens, temperature: 0.7, seed: 1)
        )
        return (heard, reply.text)
    }
}
