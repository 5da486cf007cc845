import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The memory and disk check of ``RunAnywhereSDK/checkCompatibility(modelId:contextLength:slots:)``
/// on headers and devices made for the purpose; the real engine's figures are in `ModelFitTests`.
@Suite("Model compatibility")
struct ModelCompatibilityTests {
    static let device = HardwareProfile(
        cpu: "test",
        architecture: "x86_64",
        cores: 2,
        physicalCores: 2,
        simdFeatures: [],
        memoryTotalBytes: 8 << 30,
        memoryAvailableBytes: 4 << 30,
        memoryLimitedByContainer: false,
        diskFreeBytes: 1 << 30,
        gpus: [],
        os: "test",
        osVersion: "1"
    )

    /// A model file whose header says: 4 layers of 8 heads over 512 dimensions, key-value
    /// heads per layer as given (or one number for all).
    func header(kvHeads: GGUFValue?, keyLength: Int? = nil) throws -> (URL, GGUFFile) {
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("llama"))
        writer.set("llama.block_count", .uint32(4))
        writer.set("llama.embedding_length", .uint32(512))
        writer.set("llama.attention.head_count", .uint32(8))
        writer.set("llama.context_length", .uint32(32_768))
        if let kvHeads { writer.set("llama.attention.head_count_kv", kvHeads) }
        if let keyLength { writer.set("llama.attention.key_length", .uint32(UInt32(keyLength))) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ra-fit-\(UUID().uuidString).gguf")
        try writer.write(to: url)
        return (url, try GGUFFile(contentsOf: url))
    }

    @Test("The KV cache counts each layer's key-value heads, keys and values in F16, for every token")
    func kvCache() throws {
        let (url, uniform) = try header(kvHeads: .uint32(2))
        defer { try? FileManager.default.removeItem(at: url) }
        // 4 layers × 2 heads × (64 + 64) × 2 bytes = 2 KiB per token.
        #expect(ModelMemoryEstimate(header: uniform, fileBytes: 1 << 20, contextTokens: 1000).kvCacheBytes == 2_048_000)
        let perLayer: GGUFValue = .array(elementType: .int32, [.int32(2), .int32(0), .int32(4), .int32(2)])
        let (url2, mixed) = try header(kvHeads: perLayer, keyLength: 128)
        defer { try? FileManager.default.removeItem(at: url2) }
        // Keys 128 wide, values 64: (2 + 0 + 4 + 2) × 192 × 2 bytes per token.
        #expect(
            ModelMemoryEstimate(header: mixed, fileBytes: 1 << 20, contextTokens: 10).kvCacheBytes == 8 * 192 * 2 * 10
        )
        // No key-value head count: every head is one.
        let (url3, plain) = try header(kvHeads: nil)
        defer { try? FileManager.default.removeItem(at: url3) }
        #expect(ModelMemoryEstimate(header: plain, fileBytes: 0, contextTokens: 1).kvCacheBytes == 4 * 8 * 128 * 2)
        // A per-layer list that disagrees with the layer count is not trusted: every head counts,
        // the most the cache can take.
        let (url4, short) = try header(kvHeads: .array(elementType: .int32, [.int32(2)]))
        defer { try? FileManager.default.removeItem(at: url4) }
        #expect(ModelMemoryEstimate(header: short, fileBytes: 0, contextTokens: 1).kvCacheBytes == 4 * 8 * 128 * 2)
    }

    @Test("A model that needs more memory or disk than is free is not compatible, and each reason is said")
    func verdicts() throws {
        let (url, file) = try header(kvHeads: .uint32(2))
        defer { try? FileManager.default.removeItem(at: url) }
        _ = file
        var model = ModelInfo(
            id: "m",
            name: "m",
            category: .llm,
            format: .gguf,
            framework: .llamaCpp,
            localPath: url,
            sizeBytes: 100 << 20
        )
        let small = ModelCompatibilityResult.check(model, configuration: LLMLoadConfiguration(), profile: Self.device)
        #expect(small.isCompatible && small.reasons.isEmpty)
        #expect(small.contextLength == LLMLoadConfiguration.defaultContextCap)
        #expect(small.kvCacheBytes == 2048 * Int64(small.contextLength))
        #expect(small.memoryRequiredBytes == small.weightsBytes + small.kvCacheBytes + small.workingBytes)
        // Four slots of 2^20 tokens: 8 GiB of cache.
        let big = ModelCompatibilityResult.check(
            model,
            configuration: LLMLoadConfiguration(contextLength: 1 << 20, slots: 4),
            profile: Self.device
        )
        #expect(!big.fitsMemory && big.fitsDisk)
        #expect(big.kvCacheBytes == 8 << 30)
        #expect(big.reasons.count == 1 && big.reasons[0].contains("1048576-token context"))
        // Not downloaded: its size must fit on the disk.
        model.localPath = nil
        model.sizeBytes = 2 << 30
        let remote = ModelCompatibilityResult.check(model, configuration: LLMLoadConfiguration(), profile: Self.device)
        #expect(remote.downloadBytes == 2 << 30 && !remote.fitsDisk && remote.fitsMemory)
        // Unknown size: never said to fit.
        model.sizeBytes = nil
        let unknown = ModelCompatibilityResult.check(model, configuration: LLMLoadConfiguration(), profile: Self.device)
        #expect(!unknown.isCompatible && unknown.reasons == ["The size of model 'm' is not known"])
    }
}
