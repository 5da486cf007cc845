#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Load / unload / current model for one capability.
///
/// - Loading the model that is already loaded does nothing.
/// - Concurrent loads of the same model share one load.
/// - A load of another model while one is loading fails with `.modelLoadInProgress`
///   instead of racing it.
/// - Loading a different model unloads the current one first, so two models of one
///   capability never sit in memory together.
///
/// Every transition is published on the event bus with its duration.
actor ModelLifecycle<Service: Sendable> {
    typealias Loader = @Sendable (ModelInfo) async throws -> Service
    typealias Unloader = @Sendable (Service) async -> Void

    private let category: ModelCategory
    private let registry: ModelRegistry
    private let events: EventBus
    private let unloader: Unloader
    private let logger: SDKLogger

    private(set) var current: (model: ModelInfo, service: Service)?
    /// The load in flight, resolving to the service and the load's duration in ms.
    private var loading: (id: String, task: Task<(Service, Double), any Error>)?

    init(category: ModelCategory, registry: ModelRegistry, events: EventBus, unloader: @escaping Unloader) {
        self.category = category
        self.registry = registry
        self.events = events
        self.unloader = unloader
        self.logger = SDKLogger(category: "Lifecycle.\(category.rawValue)")
    }

    var currentModel: ModelInfo? { current?.model }
    var currentService: Service? { current?.service }

    /// Loads `id` with `loader`, following the rules above.
    @discardableResult
    func load(_ id: String, using loader: @escaping Loader) async throws(SDKException) -> Service {
        // A load in flight decides first: the current model may be on its way out.
        if let loading {
            guard loading.id == id else {
                throw SDKException(
                    .modelLoadInProgress,
                    "Cannot load '\(id)' while '\(loading.id)' is loading for \(category.rawValue)",
                    recovery: "Wait for the first load to finish, then load again"
                )
            }
            do { return try await loading.task.value.0 } catch {
                throw SDKException.wrap(error, as: .modelLoadFailed, "Loading '\(id)' failed")
            }
        }
        // The same model again is a no-op, unless its remote endpoint changed since it loaded.
        if let current, current.model.id == id, current.model.remote == (try? registry.get(id))?.remote {
            return current.service
        }
        let model = try registry.get(id)
        guard model.category == category else {
            throw SDKException(
                .invalidInput,
                "Model '\(id)' is a \(model.category.rawValue) model, not \(category.rawValue)"
            )
        }
        // A model with a remote endpoint may run without local files; routing decides.
        if model.remote == nil {
            guard let path = model.localPath else {
                throw SDKException(
                    .modelFileNotFound,
                    "Model '\(id)' has no local files",
                    recovery: model.isDownloadable
                        ? "Download it first: RunAnywhere.downloadModel(\"\(id)\") or `runanywhere models download \(id)`"
                        : "Import its files first"
                )
            }
            guard FileSystem.isReadableFile(path) else {
                throw SDKException(
                    .modelFileNotFound,
                    "The file of model '\(id)' is missing: \(path.path)",
                    recovery: "Import the model again, or remove it with `runanywhere models remove \(id)`"
                )
            }
        }

        // The previous model goes first, inside the task, so the two never share memory
        // and concurrent callers for the same id already find this load in flight.
        let events = self.events
        let category = self.category
        let task = Task { () async throws -> (Service, Double) in
            await self.unloadCurrent()
            events.publish(.modelLoadStarted(modelId: id, category: category))
            let start = ContinuousClock.now
            let service = try await loader(model)
            return (service, start.duration(to: .now).milliseconds)
        }
        loading = (id, task)
        defer { loading = nil }
        do {
            let (service, ms) = try await task.value
            current = (model, service)
            registry.markUsed(id)
            logger.info("Loaded \(id) in \(String(printf: "%.0f", ms)) ms")
            events.publish(.modelLoadCompleted(modelId: id, category: category, durationMs: ms))
            return service
        } catch {
            let sdkError = SDKException.wrap(error, as: .modelLoadFailed, "Loading '\(id)' failed")
            events.publish(.modelLoadFailed(modelId: id, category: category, error: sdkError))
            throw sdkError
        }
    }

    /// Unloads the current model, if any.
    func unload() async {
        await unloadCurrent()
    }

    private func unloadCurrent() async {
        guard let current else { return }
        self.current = nil
        await unloader(current.service)
        events.publish(.modelUnloaded(modelId: current.model.id, category: category))
    }
}
