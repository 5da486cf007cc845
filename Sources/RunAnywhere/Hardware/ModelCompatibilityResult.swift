/// Whether a model fits this device now (``RunAnywhereSDK/checkCompatibility(modelId:contextLength:slots:)``):
/// the memory it takes loaded with a context, and the disk a download takes, against the
/// free memory and disk of ``HardwareProfile``.
///
/// ```swift
/// let fit = try sdk.checkCompatibility(modelId: "smollm2-135m-instruct", contextLength: 8192)
/// if !fit.isCompatible { print(fit.reasons.joined(separator: "\n")) }
/// ```
public struct ModelCompatibilityResult: Sendable, Codable, Equatable {
    /// The model checked.
    public var modelId: String
    /// The context checked, in tokens (for a language model; 0 otherwise).
    public var contextLength: Int
    /// The weights: the model's files.
    public var weightsBytes: Int64
    /// The KV cache for ``contextLength`` (F16, every layer); 0 when the model has none or
    /// its header does not say.
    public var kvCacheBytes: Int64
    /// Working buffers beside the weights and the cache.
    public var workingBytes: Int64
    /// All the memory the model takes loaded: weights, cache and working buffers.
    public var memoryRequiredBytes: Int64
    /// Memory free now (within a container's limit).
    public var memoryAvailableBytes: Int64
    /// Bytes a download still has to write; 0 when the model is on disk.
    public var downloadBytes: Int64
    /// Free space on the volume of the SDK's home.
    public var diskFreeBytes: Int64
    /// Whether ``memoryRequiredBytes`` fits in ``memoryAvailableBytes``.
    public var fitsMemory: Bool
    /// Whether ``downloadBytes`` fits in ``diskFreeBytes``.
    public var fitsDisk: Bool
    /// Why the model does not fit, one sentence each; empty when it does.
    public var reasons: [String]

    /// Whether the model fits in memory and on disk.
    public var isCompatible: Bool { fitsMemory && fitsDisk }

    enum CodingKeys: String, CodingKey {
        case modelId = "model_id"
        case contextLength = "context_length"
        case weightsBytes = "weights_bytes"
        case kvCacheBytes = "kv_cache_bytes"
        case workingBytes = "working_bytes"
        case memoryRequiredBytes = "memory_required_bytes"
        case memoryAvailableBytes = "memory_available_bytes"
        case downloadBytes = "download_bytes"
        case diskFreeBytes = "disk_free_bytes"
        case fitsMemory = "fits_memory"
        case fitsDisk = "fits_disk"
        case reasons
    }
}

extension ModelCompatibilityResult {
    /// The check of `model` loaded with `configuration` on a device with `profile`.
    static func check(
        _ model: ModelInfo,
        configuration: LLMLoadConfiguration,
        profile: HardwareProfile
    ) -> ModelCompatibilityResult {
        let isLanguage = model.category == .llm || model.category == .vision
        let size = model.sizeBytes ?? 0
        var context = 0
        var estimate = ModelMemoryEstimate(weightsBytes: size, kvCacheBytes: 0, workingBytes: 0)
        if isLanguage, model.format == .gguf, let file = try? model.localFile(),
            let header = try? GGUFFile(contentsOf: file)
        {
            context = configuration.resolvedContextLength(trained: header.contextLength)
            estimate = ModelMemoryEstimate(
                header: header,
                fileBytes: max(size, FileSystem.allocatedSize(of: file)),
                contextTokens: context * configuration.slots
            )
        } else {
            if isLanguage { context = configuration.resolvedContextLength(trained: model.contextLength) }
            estimate.workingBytes = Int64(Double(size) * HardwareProfile.workingMemoryShare)
        }
        let download = model.isDownloaded ? 0 : size
        var reasons: [String] = []
        let known = size > 0
        if !known { reasons.append("The size of model '\(model.id)' is not known") }
        let fitsMemory = known && estimate.totalBytes <= profile.memoryAvailableBytes
        if known, !fitsMemory {
            reasons.append(
                "Model '\(model.id)' needs \(Self.readable(estimate.totalBytes)) of memory"
                    + (context > 0 ? " with a \(context)-token context" : "")
                    + " (weights \(Self.readable(estimate.weightsBytes)), KV cache \(Self.readable(estimate.kvCacheBytes)),"
                    + " working \(Self.readable(estimate.workingBytes))); \(Self.readable(profile.memoryAvailableBytes)) is free"
            )
        }
        let fitsDisk = known && download <= profile.diskFreeBytes
        if known, !fitsDisk {
            reasons.append(
                "Downloading '\(model.id)' needs \(Self.readable(download)) of disk; \(Self.readable(profile.diskFreeBytes)) is free"
            )
        }
        return ModelCompatibilityResult(
            modelId: model.id,
            contextLength: context,
            weightsBytes: estimate.weightsBytes,
            kvCacheBytes: estimate.kvCacheBytes,
            workingBytes: estimate.workingBytes,
            memoryRequiredBytes: estimate.totalBytes,
            memoryAvailableBytes: profile.memoryAvailableBytes,
            downloadBytes: download,
            diskFreeBytes: profile.diskFreeBytes,
            fitsMemory: fitsMemory,
            fitsDisk: fitsDisk,
            reasons: reasons
        )
    }

    private static func readable(_ bytes: Int64) -> String {
        bytes.formattedBytes()
    }
}
