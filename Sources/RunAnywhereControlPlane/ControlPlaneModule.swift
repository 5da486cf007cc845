@_spi(Backend) public import RunAnywhere

/// Connects phase 2 of initialization to a RunAnywhere control plane at the SDK's base URL:
/// authentication, device registration, model assignments and telemetry upload, over the
/// client generated from the control-plane API's OpenAPI document.
///
/// Register it like an engine module; it does nothing for an instance without a base URL
/// and an API key.
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereControlPlane
///
/// RunAnywhere.register(ControlPlaneModule())   // before initialize: phase 1 looks for it
/// try RunAnywhere.initialize(apiKey: "ra-key-123456", baseURL: "https://cp.example.com", environment: .production)
/// try await RunAnywhere.completeServicesInitialization()   // an offline control plane: it still starts
/// ```
///
/// A module added to an instance after it was created takes no part: pass it to
/// `RunAnywhereSDK(home:…modules:)`, or register it before `RunAnywhere.initialize`.
public struct ControlPlaneModule: BackendModule {
    /// The module's name.
    public let name = "control-plane"
    /// None: the control plane runs no models.
    public var frameworks: [InferenceFramework] { [] }
    /// How long one request may take before it fails as `.remoteTimeout`.
    public let requestTimeout: Duration
    /// Events per telemetry upload (at most 1,000).
    public let telemetryBatchSize: Int
    /// How often queued telemetry is uploaded, and assignments fetched, while the app runs.
    public let uploadInterval: Duration
    /// The longest wait between attempts while the control plane is unreachable.
    public let maximumBackoff: Duration
    /// Telemetry events kept on disk at most while they cannot be uploaded; past it the
    /// oldest are dropped (and the drop logged), so a device offline for months does not
    /// fill its disk.
    public let maximumQueuedEvents: Int

    /// Creates the module.
    ///
    /// - Parameters:
    ///   - requestTimeout: How long one request may take; a control plane that hangs costs
    ///     phase 2 at most this per step, and never fails it.
    ///   - telemetryBatchSize: Events per upload, 1 to 1,000.
    ///   - uploadInterval: The pace of uploads and assignment checks.
    ///   - maximumBackoff: The cap of the back-off between failed attempts.
    ///   - maximumQueuedEvents: The most telemetry events kept on disk.
    public init(
        requestTimeout: Duration = .seconds(10),
        telemetryBatchSize: Int = 100,
        uploadInterval: Duration = .seconds(30),
        maximumBackoff: Duration = .seconds(300),
        maximumQueuedEvents: Int = 10_000
    ) {
        self.requestTimeout = requestTimeout
        self.telemetryBatchSize = telemetryBatchSize
        self.uploadInterval = uploadInterval
        self.maximumBackoff = maximumBackoff
        self.maximumQueuedEvents = maximumQueuedEvents
    }

    /// The module as a host configured through its environment makes it: one request may take
    /// `$RUNANYWHERE_CONTROL_PLANE_TIMEOUT` seconds (10 when unset); the rest are the defaults.
    ///
    /// - Throws: `.invalidConfiguration` for a timeout that is not seconds from 0 to 3600.
    public init(environment: [String: String]) throws(SDKException) {
        if let timeout = try ControlPlaneSettings.requestTimeout(in: environment) {
            self.init(requestTimeout: timeout)
        } else {
            self.init()
        }
    }

    /// Runs the control plane's agent beside every instance that has a base URL and an API key,
    /// and lets `LoggingConfiguration.enableSentryLogging` switch remote error reporting.
    public func register(with registry: ServiceRegistry) {
        // `LoggingConfiguration.enableSentryLogging` switches the shared instance's reporting here.
        RemoteReportingSwitch.shared.install { enabled in RunAnywhere.setSentryLoggingEnabled(enabled) }
        let timeout = requestTimeout
        let settings = ControlPlaneSettings(
            telemetryBatchSize: telemetryBatchSize,
            uploadInterval: uploadInterval,
            maximumBackoff: maximumBackoff,
            maximumQueuedEvents: maximumQueuedEvents
        )
        registry.registerInstanceService(name: name) { runtime in
            ControlPlaneAgent.make(for: runtime, settings: settings) { baseURL in
                OpenAPIControlPlaneConnection(baseURL: baseURL, timeout: timeout)
            }
        }
    }

    /// Describes the module for `runanywhere doctor`.
    public func engineInfo() -> EngineInfo {
        EngineInfo(name: "RunAnywhere control plane", version: "API 1.0.0", available: true, runsOnDevice: false)
    }
}
