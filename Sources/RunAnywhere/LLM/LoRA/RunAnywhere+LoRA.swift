#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// LoRA adapters on the loaded language model, and the catalog of adapters.
///
/// An adapter is a small file of low-rank weight changes trained for a base model. Applied,
/// it changes how the model writes without reloading it; several stack, each at its own
/// scale; a request can pick its own set (``LLMGenerationOptions/loraAdapters``).
///
/// ```swift
/// try RunAnywhere.lora.register(LoraAdapterCatalogEntry(
///     id: "pirate-speak", framework: .llamaCpp, baseModelIds: ["smollm2-135m-instruct"],
///     localPath: URL(fileURLWithPath: "pirate.gguf")))
/// try await RunAnywhere.loadModel("smollm2-135m-instruct")
/// try await RunAnywhere.lora.apply("pirate-speak", scale: 0.8)
/// let reply = try await RunAnywhere.generate("Say hello.")
/// try await RunAnywhere.lora.clear()
/// ```
///
/// Before an adapter is loaded, its GGUF header is checked against the model's: the same
/// architecture, every tensor it changes present in the model with matching shapes, at
/// least one such tensor, and the model among its ``LoraAdapterCatalogEntry/baseModelIds``
/// when it names any. An adapter that fails is refused with `.incompatibleLoRAAdapter`,
/// and the model keeps the adapters it had.
public struct LoRA: Sendable {
    /// The instance it works on, found at each call (the shared one may come and go).
    private let instance: @Sendable () throws(SDKException) -> RunAnywhereSDK

    init(_ instance: @escaping @Sendable () throws(SDKException) -> RunAnywhereSDK) {
        self.instance = instance
    }

    var sdk: RunAnywhereSDK {
        get throws(SDKException) { try instance() }
    }

    // MARK: The loaded model

    /// Applies adapter `id` at `scale` on top of those already applied (or changes its
    /// scale if it is one of them).
    ///
    /// - Throws: `.modelNotLoaded`, `.modelNotFound`, `.modelFileNotFound`,
    ///   `.incompatibleLoRAAdapter`, `.invalidModelFormat` (not an adapter file), `.invalidInput`
    ///   (a scale that is not finite).
    @discardableResult
    public func apply(_ id: String, scale: Float = 1) async throws(SDKException) -> LoRAState {
        try await sdk.runtime().llm.applyLoRA([LoRAAdapterSelection(id: id, scale: scale)], replacing: false)
    }

    /// Makes `adapters` the whole applied set, in one step: either all of them apply or the
    /// set stays as it was. `[]` clears it.
    @discardableResult
    public func apply(_ adapters: [LoRAAdapterSelection]) async throws(SDKException) -> LoRAState {
        try await sdk.runtime().llm.applyLoRA(adapters, replacing: true)
    }

    /// Takes adapter `id` off the model.
    ///
    /// - Throws: `.modelNotLoaded`, or `.invalidInput` when it is not applied.
    @discardableResult
    public func remove(_ id: String) async throws(SDKException) -> LoRAState {
        try await sdk.runtime().llm.removeLoRA(id)
    }

    /// Takes every adapter off the model: it generates exactly as without adapters.
    @discardableResult
    public func clear() async throws(SDKException) -> LoRAState {
        try await sdk.runtime().llm.clearLoRA()
    }

    /// The applied adapters and the model they apply to.
    public func state() async -> LoRAState {
        guard let llm = try? sdk.runtime().llm else { return LoRAState(modelId: nil, adapters: []) }
        return await llm.loraState()
    }

    /// The original SDK's name for ``state()``.
    public func list() async -> LoRAState { await state() }

    /// Whether adapter `id` fits `model` (by default the loaded language model), checked
    /// from the files without loading anything. Never throws: a problem is the result's
    /// ``LoraCompatibilityResult/reason``.
    public func checkCompatibility(_ id: String, model: String? = nil) async -> LoraCompatibilityResult {
        do {
            return try await sdk.runtime().llm.checkLoRACompatibility(id, modelId: model)
        } catch {
            return LoraCompatibilityResult(isCompatible: false, reason: error.message)
        }
    }

    // MARK: The catalog

    /// Registers an adapter: one to download later (``LoraAdapterCatalogEntry/downloadURL``,
    /// fetched with ``RunAnywhereSDK/downloadModel(_:)`` like a model), or a file already on
    /// this machine (``LoraAdapterCatalogEntry/localPath``, used where it is).
    ///
    /// - Throws: `.invalidModelId`, `.modelAlreadyExists`, `.invalidInput` (neither or both
    ///   of a URL and a path, a URL that is not http(s), a malformed checksum),
    ///   `.modelFileNotFound`, `.invalidModelFormat` or `.modelCorrupted` for a local file
    ///   that is not a sound GGUF file.
    @discardableResult
    public func register(_ entry: LoraAdapterCatalogEntry) throws(SDKException) -> LoraAdapterCatalogEntry {
        var model = ModelInfo(
            id: entry.id,
            name: entry.name,
            category: .loraAdapter,
            format: .gguf,
            framework: entry.framework,
            baseModelIds: entry.baseModelIds.isEmpty ? nil : entry.baseModelIds
        )
        switch (entry.downloadURL, entry.localPath) {
        case (let url?, nil):
            let artifact = ModelArtifact.file(RemoteFile(url: url, sha256: entry.sha256, sizeBytes: entry.sizeBytes))
            try artifact.validate(canDownload: try sdk.runtime().registry.strategies.canHandle)
            model.artifact = artifact
            model.downloadURL = url
            model.sha256 = entry.sha256
            model.sizeBytes = entry.sizeBytes
        case (nil, let path?):
            // Checked as an adapter before it is registered, so the catalog holds no file
            // that could never apply.
            _ = try LoRAAdapterFile(contentsOf: path)
            model.localPath = path
            model.sizeBytes = FileSystem.allocatedSize(of: path)
        default:
            throw SDKException(
                .invalidInput,
                "LoRA adapter '\(entry.id)' needs exactly one of a download URL and a local path"
            )
        }
        try sdk.registerModel(model)
        return LoraAdapterCatalogEntry(try sdk.model(entry.id))
    }

    /// Every registered adapter, sorted by id.
    public func allRegistered() throws(SDKException) -> [LoraAdapterCatalogEntry] {
        try sdk.models(category: .loraAdapter).map(LoraAdapterCatalogEntry.init)
    }

    /// The registered adapters made for model `modelId`: those naming it among their base
    /// models, and those naming none whose file fits it.
    public func adaptersForModel(_ modelId: String) async throws(SDKException) -> [LoraAdapterCatalogEntry] {
        // The model's header is read once, not once per adapter: with its vocabulary it is
        // the larger of the two.
        let model = try sdk.model(modelId).localPath.flatMap { try? GGUFFile(contentsOf: $0) }
        return try allRegistered().filter { entry in
            if entry.baseModelIds.contains(modelId) { return true }
            guard entry.baseModelIds.isEmpty, let model, let path = entry.localPath,
                let adapter = try? LoRAAdapterFile(contentsOf: path)
            else { return false }
            return adapter.compatibility(with: model).isCompatible
        }
    }
}

extension RunAnywhereSDK {
    /// LoRA adapters on this instance's language model, and its adapter catalog.
    public var lora: LoRA { LoRA { self } }

    /// Applies LoRA adapter `id` at `scale` (see ``LoRA/apply(_:scale:)``).
    @discardableResult
    public func applyLoRA(_ id: String, scale: Float = 1) async throws(SDKException) -> LoRAState {
        try await lora.apply(id, scale: scale)
    }

    /// Takes LoRA adapter `id` off the model (see ``LoRA/remove(_:)-(String)``).
    @discardableResult
    public func removeLoRA(_ id: String) async throws(SDKException) -> LoRAState {
        try await lora.remove(id)
    }

    /// Takes every LoRA adapter off the model (see ``LoRA/clear()``).
    @discardableResult
    public func clearLoRA() async throws(SDKException) -> LoRAState {
        try await lora.clear()
    }

    /// The LoRA adapters applied to the loaded model, with their scales.
    public func loadedLoRAAdapters() async -> [LoRAAdapterSelection] {
        await lora.state().adapters
    }

    /// Whether LoRA adapter `id` fits `model` (see ``LoRA/checkCompatibility(_:model:)``).
    public func checkLoRACompatibility(_ id: String, model: String? = nil) async -> LoraCompatibilityResult {
        await lora.checkCompatibility(id, model: model)
    }
}

extension RunAnywhere {
    /// LoRA adapters on the shared instance's language model, and its adapter catalog;
    /// before ``initialize(apiKey:baseURL:environment:storageDirectory:)`` its calls throw
    /// `.notInitialized`.
    public static var lora: LoRA { LoRA { () throws(SDKException) in try sdk() } }
}
