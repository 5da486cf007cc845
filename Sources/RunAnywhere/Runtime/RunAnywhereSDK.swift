import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One SDK: one home folder, one set of loaded models, one event bus.
///
/// Create as many as you need: two instances with different homes share no state, so a
/// test can build its own SDK and an app can keep, say, a sandboxed one per account. The
/// static ``RunAnywhere`` namespace offers the same methods on one shared instance.
///
/// Creating an instance is phase 1 of initialization (validation, folders, registry,
/// backends) and cheap; phase 2 (``completeServicesInitialization()``) starts in the
/// background at once and never fails the instance.
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereLlamaCPP
///
/// let sdk = try RunAnywhereSDK(home: URL(fileURLWithPath: "/tmp/my-app"), modules: [LlamaCPPModule()])
/// try sdk.importModel(from: URL(fileURLWithPath: "SmolLM2.gguf"), id: "smollm2", category: .llm,
///                     framework: .llamaCpp)
/// try await sdk.loadModel("smollm2")
/// let result = try await sdk.generate("Why is the sky blue?", options: LLMGenerationOptions(maxTokens: 64))
/// print(result.text)
/// await sdk.shutdown()
/// ```
public final class RunAnywhereSDK: Sendable {
    /// The event bus of this instance.
    public let events: EventBus
    /// The validated initialization parameters (the API key stays inside the SDK).
    let parameters: SDKInitParams
    /// The instance's folders.
    public let paths: SDKPaths
    /// The tools ``generateWithTools(_:tools:options:toolOptions:)`` can call, with their executors.
    public let tools = ToolRegistry()

    let live: SDKRuntime
    /// Whether the bus is this instance's own (not the facade's, which outlives instances).
    private let ownsEvents: Bool
    private let state = Mutex(State())
    private let logger = SDKLogger(category: "RunAnywhere")

    private struct State: Sendable {
        var modules: [any BackendModule] = []
        /// The shutdown, once asked for: every caller awaits the same one.
        var shutdown: Task<Void, Never>?
    }

    /// Phase 1 of initialization: validates the parameters, prepares the folders under
    /// `home`, registers `modules` and loads the model registry; then starts phase 2 in the
    /// background.
    ///
    /// - Parameters:
    ///   - home: The SDK's folder (models, registry, cache, temporary files), created if needed.
    ///   - environment: Decides validation rules and the default log level.
    ///   - apiKey: Required outside `.development`.
    ///   - baseURL: Required (https) outside `.development`.
    ///   - modules: The backends, e.g. `[LlamaCPPModule(), WhisperCPPModule()]`.
    /// - Throws: ``SDKException`` for invalid parameters, unusable storage or a corrupt registry.
    public convenience init(
        home: URL,
        environment: SDKEnvironment = .development,
        apiKey: String? = nil,
        baseURL: String? = nil,
        modules: [any BackendModule] = []
    ) throws(SDKException) {
        try self.init(
            home: home,
            environment: environment,
            apiKey: apiKey,
            baseURL: baseURL,
            modules: modules,
            events: EventBus(),
            ownsEvents: true
        )
    }

    /// The designated initializer; the shared instance passes the facade's long-lived bus.
    init(
        home: URL,
        environment: SDKEnvironment,
        apiKey: String?,
        baseURL: String?,
        modules: [any BackendModule],
        events: EventBus,
        ownsEvents: Bool = false
    ) throws(SDKException) {
        let start = ContinuousClock.now
        // The original SDK's polling sees an instance's events from its first on.
        events.startPolling()
        events.publish(.initStarted(environment: environment))
        do throws(SDKException) {
            let parameters = try SDKInitParams(apiKey: apiKey, baseURL: baseURL, environment: environment)
            SDKLogger.applyDefault(environment.defaultLogLevel)
            var unique: [any BackendModule] = []
            for module in modules where !unique.contains(where: { $0.name == module.name }) { unique.append(module) }
            let paths = SDKPaths(home: home)
            live = try SDKRuntime(params: parameters, paths: paths, events: events, modules: unique)
            self.parameters = parameters
            self.paths = paths
            self.events = events
            self.ownsEvents = ownsEvents
            state.withLock { $0.modules = unique }
        } catch {
            logger.error("Initialization failed: \(error)")
            events.publish(.initFailed(error))
            throw error
        }
        let ms = start.duration(to: .now).milliseconds
        logger.info("Initialized (\(environment)) in \(String(printf: "%.2f", ms)) ms, home \(paths.home.path)")
        events.publish(.initCompleted(durationMs: ms))
        let runtime = live
        Task.detached(priority: .utility) { await runtime.completeServicesInitialization() }
    }

    // MARK: State

    /// The environment the instance was created for.
    public var environment: SDKEnvironment { parameters.environment }

    /// The remote backend's base URL, when one was given.
    public var baseURL: URL? { parameters.configuredBaseURL }

    /// Whether phase 2 has completed.
    public var areServicesReady: Bool { live.areServicesReady }

    /// Whether the SDK runs without a remote backend (no base URL, or it could not be reached).
    public var isOfflineMode: Bool { live.isOffline }

    /// Whether ``shutdown()`` has been called; every call that needs the SDK then throws `.notInitialized`.
    public var isShutDown: Bool { state.withLock { $0.shutdown != nil } }

    /// The backend modules, in registration order: those given to the instance, then the
    /// plugins loaded from files (see ``pluginLoader``).
    public var registeredModules: [any BackendModule] { state.withLock { $0.modules } + live.plugins.modules }

    /// The instance's service registry, where its backends' providers are.
    @_spi(Backend) public var serviceRegistry: ServiceRegistry { live.services }

    /// The names of the modules given to the instance (not loaded from plugins).
    var linkedModuleNames: [String] { state.withLock { $0.modules.map(\.name) } }

    /// Adds a backend module; its services are offered at once. A module name registered
    /// before is ignored.
    public func register(_ module: any BackendModule) {
        guard !live.plugins.contains(module.name) else { return }
        let added = state.withLock { state -> Bool in
            guard !state.modules.contains(where: { $0.name == module.name }) else { return false }
            state.modules.append(module)
            return true
        }
        if added { module.register(with: live.services) }
    }

    // MARK: Lifecycle

    /// Phase 2: finishes service set-up. Safe to call many times and concurrently: every
    /// caller awaits the same work. Failures leave the SDK in offline mode, not broken.
    ///
    /// - Throws: `.notInitialized` after ``shutdown()``.
    public func completeServicesInitialization() async throws(SDKException) {
        try await runtime().completeServicesInitialization()
    }

    /// Stops the control-plane loop, cancels downloads, unloads every model, ends every
    /// event stream of ``events`` (after the events already published) and closes the
    /// instance. Later calls that need the SDK throw `.notInitialized`. Calling it again, or
    /// concurrently, waits for the same shutdown.
    public func shutdown() async {
        let live = self.live
        let events = ownsEvents ? self.events : nil
        let shutdown = state.withLock { state in
            if let running = state.shutdown { return running }
            let task = Task {
                await live.shutdown()
                events?.finishSubscriptions(close: true)
            }
            state.shutdown = task
            return task
        }
        await shutdown.value
    }

    /// The instance's router; usable after shutdown, when nothing runs anyway.
    var router: ModelRouter { live.router }

    /// The runtime, or `.notInitialized` once shut down.
    package func runtime() throws(SDKException) -> SDKRuntime {
        guard !isShutDown else {
            throw SDKException(
                .notInitialized,
                "This SDK instance has been shut down",
                recovery: "Create a new RunAnywhereSDK (or call RunAnywhere.initialize() again)"
            )
        }
        return live
    }
}
