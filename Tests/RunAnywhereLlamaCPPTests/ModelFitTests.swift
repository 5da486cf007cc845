import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Will it fit: the memory estimate against what llama.cpp really takes, and a load that
/// would not fit refused before the engine allocates.
@Suite("Will a model fit", .serialized, .wholeMachine, .tags(.realEngine, .cli))
struct ModelFitTests {
    @Test(
        "The estimate bounds the memory a loaded model really takes, within a margin, on both families",
        arguments: [
            (DefaultModels.llmId, 2048), (DefaultModels.llmId, 8192), ("gemma3-270m", 2048), ("gemma3-270m", 8192),
        ]
    )
    func estimateAgainstTheEngine(_ id: String, _ context: Int) async throws {
        try await withSDK(models: [DefaultModels.llmId, "gemma3-270m"]) { sdk in
            let fit = try sdk.checkCompatibility(modelId: id, contextLength: context)
            #expect(fit.isCompatible && fit.reasons.isEmpty)
            #expect(fit.contextLength == context)
            #expect(fit.kvCacheBytes > 0 && fit.downloadBytes == 0)
            let before = Int64(residentMemory())
            try await sdk.loadModel(id, contextLength: context)
            // One generation touches every weight page and the compute buffers.
            _ = try await sdk.generate(
                String(repeating: "word ", count: 300),
                options: LLMGenerationOptions(maxTokens: 4, temperature: 0)
            )
            let grown = Int64(residentMemory()) - before
            print(
                "fit \(id) at \(context): estimate \(fit.memoryRequiredBytes >> 20) MiB (weights \(fit.weightsBytes >> 20), "
                    + "KV \(fit.kvCacheBytes >> 20), working \(fit.workingBytes >> 20)); resident growth \(grown >> 20) MiB"
            )
            #expect(grown <= fit.memoryRequiredBytes + (32 << 20))
            #expect(fit.memoryRequiredBytes <= grown * 3 / 2)
            try await sdk.unloadModel()
        }
    }

    @Test("A load whose cache would not fit in memory is refused with a typed error before it starts")
    func tooLargeIsRefused() async throws {
        try await withSDK(models: [DefaultModels.llmId]) { sdk in
            let context = 10_000_000
            let fit = try sdk.checkCompatibility(modelId: DefaultModels.llmId, contextLength: context)
            #expect(!fit.fitsMemory && !fit.isCompatible)
            #expect(fit.kvCacheBytes > fit.memoryAvailableBytes)
            #expect(fit.reasons.first?.contains("KV cache") == true)
            let error = await #expect(throws: SDKException.self) {
                try await sdk.loadModel(DefaultModels.llmId, contextLength: context)
            }
            #expect(error?.code == .insufficientMemory)
            #expect(await sdk.currentLLMModel == nil)
            // The device is unharmed: the model loads with a context that fits.
            try await sdk.loadModel(DefaultModels.llmId, contextLength: 512)
            #expect(await sdk.currentLLMModel?.id == DefaultModels.llmId)
        }
    }

    @Test("models check says whether a model fits and why not, and exits 1 when it does not")
    func checkCommand() throws {
        try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-fit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let h = ["--home", home.path]
        let llm = try #require(try DefaultModels.llm().localPath)
        let imported = try cli(
            ["models", "import", llm.path, "--id", "small", "--category", "llm", "--framework", "llamacpp"] + h
        )
        try #require(imported.status == 0, "\(imported.err)")
        let fits = try cli(["models", "check", "small", "--context-length", "2048", "--json"] + h)
        #expect(fits.status == 0, "\(fits.err)")
        let fit = try JSONValue(parsing: fits.out)
        #expect(fit["fits_memory"] == .bool(true) && fit["context_length"] == .integer(2048))
        #expect((fit["kv_cache_bytes"]?.integerValue ?? 0) > 0)
        let huge = try cli(["models", "check", "small", "--context-length", "10000000"] + h)
        #expect(huge.status == 1)
        #expect(huge.out.contains("does not fit") && huge.out.contains("KV cache"), "\(huge.out)")
        let missing = try cli(["models", "check", "nothing-here"] + h)
        #expect(missing.status != 0 && missing.err.contains("model_not_found"), "\(missing.err)")
    }
}
