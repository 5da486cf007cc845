import Foundation
import Synchronization

/// The RunAnywhere SDK: on-device AI behind one namespace.
///
/// Initialization has two phases. ``initialize(apiKey:baseURL:environment:storageDirectory:)``
/// is synchronous and cheap: it validates the parameters, prepares the folders, loads the
/// model registry and registers the backends. ``completeServicesInitialization()`` does the
/// rest in the background; its failures are never fatal.
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereLlamaCPP
///
/// LlamaCPP.register()
/// try RunAnywhere.initialize(environment: .development)
/// try await RunAnywhere.loadModel("smollm2-135m-instruct")
/// let result = try await RunAnywhere.generate("Why is the sky blue?",
///                                             options: LLMGenerationOptions(maxTokens: 64))
/// print(result.text, result.tokensPerSecond)
/// ```
public enum RunAnywhere {
    /// The SDK's version.
    public static let version = "0.1.0"

    private struct State: Sendable {
        var runtime: SDKRuntime?
        var modules: [any BackendModule] = []
    }
    private static let state = Mutex(State())
    private static let logger = SDKLogger(category: "RunAnywhere")

    /// The event bus. Subscriptions survive ``reset()``.
    public static let events = EventBus()

    // MARK: State

    /// Whether phase 1 has completed.
    public static var isInitialized: Bool { state.withLock { $0.runtime != nil } }

    /// Whether phase 2 has completed.
    public static var areServicesReady: Bool { state.withLock { $0.runtime?.areServicesReady ?? false } }

    /// Whether the SDK runs without a remote backend (no base URL, or it could not be reached).
    public static var isOfflineMode: Bool { state.withLock { $0.runtime?.isOffline ?? true } }

    /// The environment given to `initialize`, once initialized.
    public static var environment: SDKEnvironment? { state.withLock { $0.runtime?.params.environment } }

    /// The SDK's folders, once initialized.
    public static var paths: SDKPaths? { state.withLock { $0.runtime?.paths } }

    // MARK: Backends

    /// Adds a backend module. Modules registered before initialization are wired at
    /// initialization; later ones immediately. Registering a module name twice is a no-op.
    public static func register(_ module: any BackendModule) {
        let runtime = state.withLock { state -> SDKRuntime? in
            guard !state.modules.contains(where: { $0.name == module.name }) else { return nil }
            state.modules.append(module)
            return state.runtime
        }
        runtime.map { module.register(with: $0.services) }
    }

    /// The registered backend modules.
    public static var registeredModules: [any BackendModule] { state.withLock { $0.modules } }

    // MARK: Initialization

    /// Phase 1: validates the parameters, prepares storage, loads the model registry and
    /// registers the backends, then starts phase 2 in the background.
    ///
    /// Calling it again once initialized does nothing; call ``reset()`` first to change
    /// parameters.
    ///
    /// - Parameters:
    ///   - apiKey: Required outside `.development`.
    ///   - baseURL: Required (https) outside `.development`.
    ///   - environment: Decides validation rules and the default log level.
    ///   - storageDirectory: The SDK's home; defaults to ``SDKPaths/defaultHome(environment:)``.
    /// - Throws: ``SDKException`` for invalid parameters, unusable storage or a corrupt registry.
    public static func initialize(apiKey: String? = nil, baseURL: String? = nil,
                                  environment: SDKEnvironment = .development,
                                  storageDirectory: URL? = nil) throws(SDKException) {
        if isInitialized { return }
        let start = ContinuousClock.now
        events.publish(.initStarted(environment: environment))
        do throws(SDKException) {
            let params = try SDKInitParams(apiKey: apiKey, baseURL: baseURL, environment: environment)
            SDKLogger.applyDefault(environment.defaultLogLevel)
            let paths = SDKPaths(home: storageDirectory ?? SDKPaths.defaultHome())
            let modules = state.withLock { $0.modules }
            let runtime = try SDKRuntime(params: params, paths: paths, events: events, modules: modules)
            let won = state.withLock { state -> Bool in
                guard state.runtime == nil else { return false }
                state.runtime = runtime
                return true
            }
            guard won else { return }
            let ms = start.duration(to: .now).milliseconds
            logger.info("Initialized (\(environment)) in \(String(format: "%.2f", ms)) ms, home \(paths.home.path)")
            events.publish(.initCompleted(durationMs: ms))
            Task.detached(priority: .utility) { await runtime.completeServicesInitialization() }
        } catch {
            logger.error("Initialization failed: \(error)")
            events.publish(.initFailed(error))
            throw error
        }
    }

    /// Phase 2: finishes service set-up. Safe to call many times and concurrently: every
    /// caller awaits the same work. Failures leave the SDK in offline mode, not broken.
    ///
    /// - Throws: `.notInitialized` before ``initialize(apiKey:baseURL:environment:storageDirectory:)``.
    public static func completeServicesInitialization() async throws(SDKException) {
        try await runtime().completeServicesInitialization()
    }

    /// Unloads every model and forgets the initialization. Backend modules stay registered
    /// and event subscriptions stay open.
    public static func reset() async {
        let runtime = state.withLock { state -> SDKRuntime? in
            defer { state.runtime = nil }
            return state.runtime
        }
        await runtime?.shutdown()
    }

    /// Sets the SDK-wide log level. Without a call, initialization applies the
    /// environment's default (``SDKEnvironment/defaultLogLevel``).
    public static func setLogLevel(_ level: LogLevel) {
        SDKLogger.currentLevel = level
    }

    /// The runtime, or `.notInitialized`.
    static func runtime() throws(SDKException) -> SDKRuntime {
        guard let runtime = state.withLock({ $0.runtime }) else {
            throw SDKException(.notInitialized, "The SDK is not initialized",
                               recovery: "Call RunAnywhere.initialize() first")
        }
        return runtime
    }
}
