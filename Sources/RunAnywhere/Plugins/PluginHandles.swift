import Synchronization

/// The model ids whose handles one loaded plugin holds, loads in progress included.
///
/// Kept on the plugin's side, not asked of the capabilities: a capability holds a model only
/// once its load has finished, and asking them all takes awaits, between which a load could
/// start. Once the plugin is retired no load records here again, so the check that unloading
/// makes and the removal are one step.
final class PluginHandles: Sendable {
    private struct State {
        var modelIds: [String] = []
        var retired = false
    }

    private let state = Mutex(State())

    /// Records a handle of `modelId` about to be made; `false` once the plugin is unloaded.
    func record(_ modelId: String) -> Bool {
        state.withLock { state -> Bool in
            guard !state.retired else { return false }
            state.modelIds.append(modelId)
            return true
        }
    }

    /// Forgets one handle of `modelId`, released or never made.
    func forget(_ modelId: String) {
        state.withLock { state in
            if let index = state.modelIds.firstIndex(of: modelId) { state.modelIds.remove(at: index) }
        }
    }

    /// Retires the plugin when it holds no handle; otherwise the ids it holds handles of, each once.
    func retire() -> [String] {
        state.withLock { state -> [String] in
            if state.modelIds.isEmpty { state.retired = true }
            var seen: Set<String> = []
            return state.modelIds.filter { seen.insert($0).inserted }
        }
    }
}
