import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("Accelerator preference on the real engines")
    struct AcceleratorRealTests {
        @Test("On the CPU builds .gpu is refused up front and by llama.cpp and whisper.cpp at load; .cpu runs both")
        func cpuBuilds() async throws {
            try await withSDK(models: [DefaultModels.llmId] + DefaultModels.speech) { sdk in
                #expect(!LlamaCPP.supportsGPUOffload, "the bootstrap builds llama.cpp for the CPU")
                let cpu = try #require(sdk.hardware.getAccelerators().first)
                #expect(cpu.kind == .cpu)
                #expect(cpu.engines.contains("llama.cpp") && cpu.engines.contains("whisper.cpp"))
                #expect(!cpu.engines.contains("OpenAI-compatible servers"), "a remote client runs nothing here")
                await expectCode(.acceleratorUnavailable) { try sdk.hardware.setAcceleratorPreference(.gpu) }
                #expect(sdk.hardware.acceleratorPreference == .auto)

                // Past the up-front check (as a preference set before a CPU build was swapped in
                // would be), each engine refuses by itself.
                sdk.live.services.acceleratorPreference = .gpu
                await expectCode(.acceleratorUnavailable) { try await sdk.loadModel(DefaultModels.llmId) }
                await expectCode(.acceleratorUnavailable) { try await sdk.loadSTTModel(DefaultModels.sttId) }

                try sdk.hardware.setAcceleratorPreference(.cpu)
                try await sdk.loadModel(DefaultModels.llmId)
                let reply = try await sdk.generate("Hello", options: LLMGenerationOptions(maxTokens: 4, temperature: 0))
                #expect(reply.generatedTokens > 0)
                try await sdk.loadTTSModel(DefaultModels.ttsId)
                try await sdk.loadSTTModel(DefaultModels.sttId)
                let speech = try await sdk.synthesize("Turn on the kitchen lights.")
                let heard = try await sdk.transcribe(speech.audio)
                #expect(words(heard.text).contains("kitchen"), "\(heard.text)")
            }
        }
    }
}
