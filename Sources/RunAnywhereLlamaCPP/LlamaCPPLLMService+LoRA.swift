internal import CLlama
@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension LlamaCPPLLMService {
    func loadLoRAAdapter(id: String, file: URL) async throws {
        let engine = self.engine
        try await worker.run { () throws in
            guard let model = engine.model else {
                throw SDKException(.modelNotLoaded, "The model was unloaded")
            }
            // llama.cpp checks the file again (architecture, tensor names and shapes) and
            // returns NULL, without aborting, when anything is off.
            guard let handle = llama.llama_adapter_lora_init(model, file.path) else {
                throw SDKException(
                    .invalidModelFormat,
                    "llama.cpp could not load LoRA adapter '\(id)' from \(file.lastPathComponent)"
                )
            }
            engine.forget(id)
            engine.adapters[id] = handle
        }
    }

    func unloadLoRAAdapter(id: String) async {
        let engine = self.engine
        _ = try? await worker.run { engine.forget(id) }
    }

    func setDefaultLoRAAdapters(_ adapters: [LoRAAdapterSelection]) async throws {
        let engine = self.engine
        // The ids are checked where the adapters are (on the worker); the set itself is read
        // by the decode loop when it admits a request.
        try await worker.run { () throws in
            _ = try engine.resolve(adapters)
            engine.defaultAdapters.withLock { $0 = adapters }
        }
    }
}

extension LlamaCPPLLMService.Engine {
    /// What a list of adapters does on the context: an adapter at scale 0 changes nothing
    /// and costs time, so it is left out; the order is fixed so that equal sets compare equal.
    static func normalized(_ adapters: [LoRAAdapterSelection]) -> [LoRAAdapterSelection] {
        adapters.filter { $0.scale != 0 }.sorted { $0.id < $1.id }
    }

    /// The adapters a request selects (`nil`: the default set), normalized, every one loaded.
    func resolve(_ selected: [LoRAAdapterSelection]?) throws(SDKException) -> [LoRAAdapterSelection] {
        let adapters = Self.normalized(selected ?? defaultAdapters.withLock { $0 })
        for adapter in adapters where self.adapters[adapter.id] == nil {
            throw SDKException(.invalidInput, "LoRA adapter '\(adapter.id)' is not loaded")
        }
        return adapters
    }

    /// Puts `adapters` (normalized, loaded) on the context, unless they are there already.
    func useAdapters(_ adapters: [LoRAAdapterSelection]) throws(SDKException) {
        guard adapters != contextAdapters, let context else { return }
        var handles: [OpaquePointer?] = adapters.map { self.adapters[$0.id] }
        var scales = adapters.map(\.scale)
        let code =
            handles.isEmpty
            ? llama.llama_set_adapters_lora(context, nil, 0, nil)
            : llama.llama_set_adapters_lora(context, &handles, handles.count, &scales)
        guard code == 0 else {
            throw SDKException(.backendError, "llama.cpp could not apply the LoRA adapters (code \(code))")
        }
        contextAdapters = adapters
    }

    /// Frees adapter `id`, after taking it off the context, out of the default set, and
    /// dropping every slot cache computed with it (a new adapter under the same id must not
    /// reuse them).
    func forget(_ id: String) {
        guard let handle = adapters[id] else { return }
        if contextAdapters.contains(where: { $0.id == id }) {
            do {
                try useAdapters(contextAdapters.filter { $0.id != id })
            } catch {
                // Never free an adapter the context may still use: clear them all, and
                // should even that fail, keep the memory rather than a dangling pointer.
                guard let context, llama.llama_set_adapters_lora(context, nil, 0, nil) == 0 else { return }
                contextAdapters = []
            }
        }
        defaultAdapters.withLock { $0.removeAll { $0.id == id } }
        if let context {
            for slot in slotAdapters.indices where slotAdapters[slot].contains(where: { $0.id == id }) {
                _ = llama.llama_memory_seq_rm(llama.llama_get_memory(context), llama_seq_id(slot), -1, -1)
                slotCaches[slot] = []
                slotAdapters[slot] = []
            }
        }
        llama.llama_adapter_lora_free(handle)
        adapters[id] = nil
    }
}
