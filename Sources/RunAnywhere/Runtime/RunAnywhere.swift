import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The RunAnywhere SDK: on-device AI behind one namespace.
///
/// `RunAnywhere` is the static API over one shared ``RunAnywhereSDK``: every
/// method here does what the instance method of the same name does on that instance.
/// Create your own ``RunAnywhereSDK`` values when you need more than one (tests, several
/// homes); use the namespace when one is all you need.
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
        var shared: RunAnywhereSDK?
        var modules: [any BackendModule] = []
    }
    private static let state = Mutex(State())

    /// The event bus of the shared instance. It outlives instances: ``reset()`` ends the
    /// streams open at the time, and subscriptions made afterwards see the next instance's events.
    public static let events = EventBus()

    // MARK: State

    /// The shared instance, once ``initialize(apiKey:baseURL:environment:storageDirectory:)`` has run.
    public static var shared: RunAnywhereSDK? { state.withLock { $0.shared }.flatMap { $0.isShutDown ? nil : $0 } }

    /// Whether phase 1 has completed.
    public static var isInitialized: Bool { shared != nil }

    /// Whether the SDK is initialized and holds its parameters (the original SDK's name; here
    /// the same as ``isInitialized``).
    public static var isActive: Bool { isInitialized }

    /// Whether phase 2 has completed.
    public static var areServicesReady: Bool { shared?.areServicesReady ?? false }

    /// Whether the SDK runs without a remote backend (no base URL, or it could not be reached).
    public static var isOfflineMode: Bool { shared?.isOfflineMode ?? true }

    /// The environment given to `initialize`, once initialized.
    public static var environment: SDKEnvironment? { shared?.environment }

    /// The SDK's folders, once initialized.
    public static var paths: SDKPaths? { shared?.paths }

    // MARK: Backends

    /// Adds a backend module to the shared instance. Modules registered before
    /// initialization are wired at initialization; later ones immediately. Registering a
    /// module name twice is a no-op. An instance of your own takes its modules at
    /// ``RunAnywhereSDK/init(home:environment:apiKey:baseURL:modules:)`` or through
    /// ``RunAnywhereSDK/register(_:)``.
    public static func register(_ module: any BackendModule) {
        let shared = state.withLock { state -> RunAnywhereSDK? in
            guard !state.modules.contains(where: { $0.name == module.name }) else { return nil }
            state.modules.append(module)
            return state.shared
        }
        shared?.register(module)
    }

    /// The backend modules registered for the shared instance, in registration order, then,
    /// once it is initialized, the modules of its open plugins (see ``PluginLoader``).
    public static var registeredModules: [any BackendModule] {
        shared?.registeredModules ?? state.withLock { $0.modules }
    }

    // MARK: Initialization

    /// Phase 1: creates the shared ``RunAnywhereSDK`` (validating the parameters,
    /// preparing storage, loading the model registry and registering the backends), then
    /// starts phase 2 in the background.
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
    public static func initialize(
        apiKey: String? = nil,
        baseURL: String? = nil,
        environment: SDKEnvironment = .development,
        storageDirectory: URL? = nil
    ) throws(SDKException) {
        if isInitialized { return }
        let modules = state.withLock { $0.modules }
        let sdk = try RunAnywhereSDK(
            home: storageDirectory ?? SDKPaths.defaultHome(),
            environment: environment,
            apiKey: apiKey,
            baseURL: baseURL,
            modules: modules,
            events: events
        )
        let won = state.withLock { state -> Bool in
            guard state.shared == nil || state.shared?.isShutDown == true else { return false }
            state.shared = sdk
            return true
        }
        // A concurrent initialize got there first; this one's instance is not used.
        if !won { Task { await sdk.shutdown() } }
    }

    /// Phase 1 with the base URL as a `URL` (the original SDK's overload, production unless
    /// told otherwise); see ``initialize(apiKey:baseURL:environment:storageDirectory:)``.
    public static func initialize(
        apiKey: String,
        baseURL: URL,
        environment: SDKEnvironment = .production
    ) throws(SDKException) {
        try initialize(apiKey: apiKey, baseURL: baseURL.absoluteString, environment: environment)
    }

    /// Phase 2: finishes service set-up. Safe to call many times and concurrently: every
    /// caller awaits the same work. Failures leave the SDK in offline mode, not broken.
    ///
    /// - Throws: `.notInitialized` before ``initialize(apiKey:baseURL:environment:storageDirectory:)``.
    public static func completeServicesInitialization() async throws(SDKException) {
        try await sdk().completeServicesInitialization()
    }

    /// Shuts the shared instance down and forgets the initialization: stops its background
    /// work (the control-plane loop, downloads), unloads every model and ends every stream of
    /// ``events`` open now. Backend modules stay registered. Calling it again does nothing;
    /// ``initialize(apiKey:baseURL:environment:storageDirectory:)`` works again afterwards.
    ///
    /// ```swift
    /// await RunAnywhere.reset()
    /// try RunAnywhere.initialize(environment: .development, storageDirectory: otherHome)
    /// ```
    public static func reset() async {
        let shared = state.withLock { state -> RunAnywhereSDK? in
            defer { state.shared = nil }
            return state.shared
        }
        guard let shared else { return }
        await shared.shutdown()
        events.finishSubscriptions()
    }

    /// Sets the SDK-wide log level (it applies to every instance). Without a call,
    /// initialization applies the environment's default (``SDKEnvironment/defaultLogLevel``).
    public static func setLogLevel(_ level: LogLevel) {
        SDKLogger.currentLevel = level
    }

    /// The shared instance, or `.notInitialized`.
    package static func sdk() throws(SDKException) -> RunAnywhereSDK {
        guard let shared else { throw notInitializedError }
        return shared
    }

    /// What a call that needs the shared instance throws before initialization.
    static var notInitializedError: SDKException {
        SDKException(.notInitialized, "The SDK is not initialized", recovery: "Call RunAnywhere.initialize() first")
    }
}
