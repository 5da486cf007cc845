import Synchronization

/// Which model each capability has loaded, kept from the lifecycle's events so it can be
/// read without waiting on the capabilities' actors: the original SDK's `currentModel` and
/// `componentLifecycleSnapshot` are synchronous.
final class LoadedModels: Sendable {
    private let ids = Mutex<[ModelCategory: String]>([:])

    /// A table that follows the load and unload events of `events`.
    init(events: EventBus) {
        _ = events.addObserver { [self] event in record(event) }
    }

    private func record(_ event: SDKEvent) {
        switch event.kind {
        case .modelLoadCompleted(let id, let category, _):
            ids.withLock { $0[category] = id }
        case .modelUnloaded(let id, let category):
            ids.withLock { loaded in
                if loaded[category] == id { loaded[category] = nil }
            }
        default:
            break
        }
    }

    /// The id of the model loaded for `category`, if any.
    func id(for category: ModelCategory) -> String? {
        ids.withLock { $0[category] }
    }
}
