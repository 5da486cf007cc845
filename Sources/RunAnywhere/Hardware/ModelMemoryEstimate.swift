/// The memory a GGUF language model takes in llama.cpp for a context, from its header: the
/// weights (the file, mapped), the KV cache (F16 keys and values for every layer and every
/// token of the context, sliding-window layers counted whole, so it errs high), and working
/// buffers.
struct ModelMemoryEstimate: Sendable, Equatable {
    var weightsBytes: Int64
    var kvCacheBytes: Int64
    var workingBytes: Int64

    var totalBytes: Int64 {
        let (sum, overflow) = (weightsBytes + workingBytes).addingReportingOverflow(kvCacheBytes)
        return overflow ? Int64.max : sum
    }

    init(weightsBytes: Int64, kvCacheBytes: Int64, workingBytes: Int64) {
        self.weightsBytes = weightsBytes
        self.kvCacheBytes = kvCacheBytes
        self.workingBytes = workingBytes
    }

    /// Working buffers beside the weights and the cache, as a share of the weights
    /// (``HardwareProfile/workingMemoryShare``), and at least this much: llama.cpp's compute
    /// buffers and a batch's logits over the vocabulary.
    static let minimumWorkingBytes: Int64 = 64 << 20

    /// The estimate for `contextTokens` tokens of context (all slots together).
    ///
    /// A header without the sizes the cache needs (a recurrent model, an unknown layout)
    /// counts no cache.
    init(header: GGUFFile, fileBytes: Int64, contextTokens: Int) {
        weightsBytes = fileBytes
        let vocabulary = Int64(header.metadata["tokenizer.ggml.tokens"].flatMap { Self.count($0) } ?? 0)
        let logits = vocabulary * 4 * Int64(min(contextTokens, 512)) / 8
        workingBytes = max(
            Int64(Double(fileBytes) * HardwareProfile.workingMemoryShare),
            Self.minimumWorkingBytes,
            logits
        )
        kvCacheBytes = Self.kvCacheBytes(header: header, contextTokens: contextTokens) ?? 0
    }

    /// F16 keys and values: per layer, its key-value heads times the key and value widths.
    private static func kvCacheBytes(header: GGUFFile, contextTokens: Int) -> Int64? {
        guard let architecture = header.architecture else { return nil }
        func value(_ key: String) -> GGUFValue? { header.metadata["\(architecture).\(key)"] }
        guard let layers = value("block_count")?.intValue, layers > 0, layers < 10_000,
            let width = value("embedding_length")?.intValue, width > 0,
            let heads = perLayer(value("attention.head_count"), layers: layers)
        else { return nil }
        let kvHeads = perLayer(value("attention.head_count_kv"), layers: layers) ?? heads
        var perToken: Int64 = 0
        for layer in 0..<layers where heads[layer] > 0 {
            let keyWidth = value("attention.key_length")?.intValue ?? width / heads[layer]
            let valueWidth = value("attention.value_length")?.intValue ?? width / heads[layer]
            guard keyWidth > 0, valueWidth > 0, keyWidth < 1 << 20, valueWidth < 1 << 20 else { return nil }
            perToken += Int64(kvHeads[layer]) * Int64(keyWidth + valueWidth) * 2
        }
        let (total, overflow) = perToken.multipliedReportingOverflow(by: Int64(max(contextTokens, 0)))
        return overflow ? Int64.max / 4 : total
    }

    /// A per-layer count: one number for every layer, or one per layer.
    private static func perLayer(_ value: GGUFValue?, layers: Int) -> [Int]? {
        if let one = value?.intValue, one >= 0, one < 1 << 16 { return Array(repeating: one, count: layers) }
        guard let items = value?.arrayValue, items.count == layers else { return nil }
        let counts = items.compactMap(\.intValue)
        return counts.count == layers && counts.allSatisfy { $0 >= 0 && $0 < 1 << 16 } ? counts : nil
    }

    /// The number of items of an array value, without decoding them.
    private static func count(_ value: GGUFValue) -> Int? {
        if case .list(let array) = value { return array.count }
        return nil
    }
}
