@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Spoken turns: each input is the path of a WAV file; the transcript, the reply and (with
/// a voice and an output folder) the spoken reply come back.
struct VoiceAgentPipeline: SolutionPipeline {
    let sdk: RunAnywhereSDK
    let solution: VoiceAgentSolution

    static func prepare(_ solution: VoiceAgentSolution, sdk: RunAnywhereSDK) async throws(SDKException) -> Self {
        if let folder = solution.outputDirectory {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw SDKException(.fileSystemError, "Cannot create the output folder \(folder.path): \(error)")
            }
        }
        try await sdk.initializeVoiceAgent(
            VoiceAgentConfiguration(
                sttModelId: solution.stt,
                llmModelId: solution.llm,
                ttsModelId: solution.tts,
                vadModelId: solution.vad,
                systemPrompt: solution.systemPrompt,
                generationOptions: LLMGenerationOptions(maxTokens: solution.maxTokens, temperature: 0)
            )
        )
        return Self(sdk: sdk, solution: solution)
    }

    func process(
        _ input: String,
        index: Int,
        emit: @Sendable (SolutionEvent) -> Void
    ) async throws(SDKException) -> (text: String, details: [String: String]) {
        let url = URL(fileURLWithPath: input)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SDKException(.invalidInput, "Cannot read the recording \(input): \(error.readableDescription)")
        }
        let result = try await sdk.processVoiceTurn(audio: data)
        emit(.transcript(index: index, text: result.transcript))
        var details = ["transcript": result.transcript]
        if let folder = solution.outputDirectory, !result.audio.samples.isEmpty {
            let file = folder.appendingPathComponent("reply-\(index + 1).wav")
            try WAVFile.write(result.audio, to: file)
            details["audio"] = file.path
        }
        return (result.responseText, details)
    }

    func close() async {
        await sdk.cleanupVoiceAgent()
    }
}
