#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the LLM capability knows of the loaded model's LoRA adapters.
struct LoRABook: Sendable {
    /// The adapters every generation uses unless its options name others.
    var applied: [LoRAAdapterSelection] = []
    /// Adapters whose files the loaded model's service holds, ready to select.
    var loaded: Set<String> = []
}

extension LLMCapability {
    /// The applied adapters.
    func loraState() async -> LoRAState {
        LoRAState(modelId: await lifecycle.currentModel?.id, adapters: lora.applied)
    }

    /// Makes `selections` the applied set (`replacing`), or adds them to it, replacing the
    /// scale of an adapter already applied. Each adapter is checked against the model and
    /// loaded first; on any failure nothing changes.
    func applyLoRA(_ selections: [LoRAAdapterSelection], replacing: Bool) async throws(SDKException) -> LoRAState {
        try LoRAAdapterSelection.validate(selections)
        let service = try await loadedService()
        _ = try await prepareLoRA(selections, service: service)
        var applied = replacing ? [] : lora.applied
        for selection in selections {
            if let index = applied.firstIndex(where: { $0.id == selection.id }) {
                applied[index] = selection
            } else {
                applied.append(selection)
            }
        }
        try await setApplied(applied, service: service)
        return await loraState()
    }

    /// Takes adapter `id` out of the applied set.
    ///
    /// - Throws: `.invalidInput` when it is not applied.
    func removeLoRA(_ id: String) async throws(SDKException) -> LoRAState {
        let service = try await loadedService()
        guard lora.applied.contains(where: { $0.id == id }) else {
            throw SDKException(
                .invalidInput,
                "LoRA adapter '\(id)' is not applied",
                recovery: "See RunAnywhere.lora.state() for the applied adapters"
            )
        }
        try await setApplied(lora.applied.filter { $0.id != id }, service: service)
        return await loraState()
    }

    /// Empties the applied set: the model generates as it was trained.
    func clearLoRA() async throws(SDKException) -> LoRAState {
        let service = try await loadedService()
        try await setApplied([], service: service)
        return await loraState()
    }

    /// Whether adapter `id` fits model `modelId` (by default, the loaded one); never throws.
    func checkLoRACompatibility(_ id: String, modelId: String?) async -> LoraCompatibilityResult {
        do {
            let model: ModelInfo
            if let modelId {
                model = try registry.get(modelId)
            } else if let current = await lifecycle.currentModel {
                model = current
            } else {
                return LoraCompatibilityResult(isCompatible: false, reason: "No language model is loaded")
            }
            return try compatibility(of: id, with: model)
        } catch {
            return LoraCompatibilityResult(isCompatible: false, reason: error.message)
        }
    }

    /// The adapters a request uses, every one of them loaded; `nil` for the applied set.
    func prepareLoRA(
        _ selections: [LoRAAdapterSelection]?,
        service: any LLMService
    ) async throws(SDKException) -> [LoRAAdapterSelection]? {
        guard let selections else { return nil }
        for selection in selections { try await ensureLoaded(selection.id, service: service) }
        return selections
    }

    /// Forgets adapter `id` (its registry entry is going away): out of the applied set and
    /// out of the engine.
    func forgetLoRA(_ id: String) async {
        guard let service = try? await loadedService() else { return }
        if lora.applied.contains(where: { $0.id == id }) {
            try? await setApplied(lora.applied.filter { $0.id != id }, service: service)
        }
        if lora.loaded.remove(id) != nil { await service.unloadLoRAAdapter(id: id) }
    }

    private func setApplied(_ applied: [LoRAAdapterSelection], service: any LLMService) async throws(SDKException) {
        do {
            try await service.setDefaultLoRAAdapters(applied)
        } catch {
            throw SDKException.wrap(error, as: .backendError, "The LoRA adapters could not be applied")
        }
        lora.applied = applied
    }

    private func ensureLoaded(_ id: String, service: any LLMService) async throws(SDKException) {
        guard !lora.loaded.contains(id) else { return }
        let result = try compatibility(of: id, with: service.model)
        guard result.isCompatible else {
            throw SDKException(
                .incompatibleLoRAAdapter,
                "LoRA adapter '\(id)' does not fit '\(service.model.id)': \(result.reason ?? "unknown reason")"
            )
        }
        // The compatibility check has read the file, so it is there.
        let file = try registry.get(id).localPath!
        do {
            try await service.loadLoRAAdapter(id: id, file: file)
        } catch {
            throw SDKException.wrap(error, as: .invalidModelFormat, "The engine could not load LoRA adapter '\(id)'")
        }
        lora.loaded.insert(id)
    }

    /// Checks the adapter registered as `id` against `model`'s file; throws when either
    /// entry or file is missing or unreadable.
    private func compatibility(of id: String, with model: ModelInfo) throws(SDKException) -> LoraCompatibilityResult {
        let entry = try registry.get(id)
        guard entry.category == .loraAdapter else {
            throw SDKException(.invalidInput, "'\(id)' is a \(entry.category.rawValue) model, not a LoRA adapter")
        }
        guard let adapterFile = entry.localPath else {
            throw SDKException(
                .modelFileNotFound,
                "LoRA adapter '\(id)' has no local file",
                recovery: "Download it first: RunAnywhere.downloadModel(\"\(id)\")"
            )
        }
        let adapter = try LoRAAdapterFile(contentsOf: adapterFile)
        var result = adapter.compatibility(with: try GGUFFile(contentsOf: try model.localFile()))
        if result.isCompatible, let bases = entry.baseModelIds, !bases.contains(model.id) {
            result.isCompatible = false
            result.matchedTensors = 0
            result.reason = "it was made for \(bases.joined(separator: ", ")), not '\(model.id)'"
        }
        return result
    }
}
