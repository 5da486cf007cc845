@_spi(Backend) public import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

extension RunAnywhereSDK {
    /// Turns remote error reporting on or off and waits until it is done (``setSentryLoggingEnabled(_:)`` is the original SDK's form, which does not wait).
    ///
    /// While on, every warning, error and critical line the SDK logs (whatever the local log
    /// level), and an app's own through ``RemoteErrorLogHandler``, is redacted (keys, tokens,
    /// quoted text and paths removed; prompts and transcripts are never logged) and queued on
    /// disk, then uploaded in the background with back-off: to the control plane's telemetry
    /// endpoint when the instance has one, and to the Sentry-compatible collector of
    /// `sentryDSN` when one is given, in Sentry's envelope format. Reports survive restarts;
    /// each is sent until its destination takes it, under one id, so it is counted once.
    ///
    /// ```swift
    /// try await sdk.setRemoteErrorReportingEnabled(true, sentryDSN: "https://key@o1.ingest.sentry.io/42")
    /// ```
    ///
    /// - Throws: `.invalidConfiguration` for a malformed DSN, or when turning it on with no
    ///   destination (no DSN and no control plane); storage errors opening the queue.
    public func setRemoteErrorReportingEnabled(_ enabled: Bool, sentryDSN: String? = nil) async throws(SDKException) {
        let runtime = try runtime()
        let dsn = try sentryDSN.map { (text: String) throws(SDKException) in try SentryDSN(text) }
        let reporting = runtime.instanceService(ErrorReporting.self) { ErrorReporting() }
        let controlPlane = runtime.instanceService(ControlPlaneAgent.self)
        await reporting.stop()
        guard enabled else { return }
        guard dsn != nil || controlPlane != nil else {
            throw SDKException(
                .invalidConfiguration,
                "Remote error reporting needs a destination: a Sentry DSN, or a control plane (initialize with a base URL)"
            )
        }
        try await reporting.start(
            dsn: dsn,
            controlPlaneQueue: controlPlane?.queue,
            paths: paths,
            environment: environment.rawValue
        )
    }

    /// Whether remote error reporting is on.
    public var isRemoteErrorReportingEnabled: Bool {
        get async { await (try? runtime())?.instanceService(ErrorReporting.self)?.isOn ?? false }
    }

    /// Uploads the queued error reports to the Sentry-compatible collector now; returns how
    /// many it took. (Reports for the control plane go with ``flushTelemetry()``.)
    ///
    /// - Throws: `.invalidConfiguration` without a DSN; the collector's failures
    ///   (`remoteUnreachable`, `remoteTimeout`, `remoteServerError`…), the reports staying queued.
    public func flushErrorReports() async throws(SDKException) -> Int {
        guard let uploader = try await runtime().instanceService(ErrorReporting.self)?.uploader else {
            throw SDKException(.invalidConfiguration, "Remote error reporting to a Sentry DSN is not on")
        }
        return try await uploader.flush()
    }

    /// The most error reports kept on disk while the collector cannot take them.
    static let defaultErrorReportCapacity = 10_000

    /// Error reports waiting on disk for the Sentry-compatible collector.
    public func pendingErrorReportCount() throws(SDKException) -> Int {
        let file = paths.errorReportQueueFile
        guard FileManager.default.fileExists(atPath: file.path) else { return 0 }
        return try TelemetryQueue(url: file, capacity: Self.defaultErrorReportCapacity).count()
    }
}

extension RunAnywhere {
    /// Turns remote error reporting on or off for the shared instance.
    ///
    /// Calls `RunAnywhereSDK.setRemoteErrorReportingEnabled(_:sentryDSN:)`.
    public static func setRemoteErrorReportingEnabled(
        _ enabled: Bool,
        sentryDSN: String? = nil
    ) async throws(SDKException) {
        try await sdk().setRemoteErrorReportingEnabled(enabled, sentryDSN: sentryDSN)
    }

    /// Uploads the shared instance's queued error reports now.
    ///
    /// Calls `RunAnywhereSDK.flushErrorReports()`.
    public static func flushErrorReports() async throws(SDKException) -> Int {
        try await sdk().flushErrorReports()
    }

    /// Turns the shared instance's remote error reporting on or off without waiting (the
    /// original SDK's synchronous switch).
    ///
    /// Calls `RunAnywhereSDK.setSentryLoggingEnabled(_:)`; before `initialize` nothing changes
    /// and a warning is logged. `RunAnywhere.configureLogging(_:)` calls it when its
    /// `enableSentryLogging` changes.
    @discardableResult
    public static func setSentryLoggingEnabled(_ enabled: Bool) -> Task<Void, Never> {
        do throws(SDKException) {
            let sdk = try sdk()
            // Taken by the shared instance: a logging configuration applied later compares against it.
            RemoteReportingSwitch.shared.record(enabled)
            return sdk.setSentryLoggingEnabled(enabled)
        } catch {
            SDKLogger(category: "ErrorReporting").warning("Remote error reporting not changed: \(error.message)")
            return Task {}
        }
    }
}

/// The switches of ``RunAnywhereSDK/setSentryLoggingEnabled(_:)`` not yet carried out, so they
/// take effect in the order they were made.
private let pendingSentrySwitch = Mutex<(task: Task<Void, Never>?, count: Int)>((nil, 0))

extension RunAnywhereSDK {
    /// Turns remote error reporting on or off without waiting, to the destinations the
    /// instance has (its control plane), as the original SDK's `setSentryLoggingEnabled` does.
    ///
    /// Switches take effect in the order they were made; a failure (no destination) is
    /// logged as a warning, since the caller does not wait. Await the returned task to know
    /// the switch is done; ``setRemoteErrorReportingEnabled(_:sentryDSN:)`` is the form that
    /// waits and throws.
    @discardableResult
    public func setSentryLoggingEnabled(_ enabled: Bool) -> Task<Void, Never> {
        pendingSentrySwitch.withLock { pending in
            let previous = pending.task
            let number = pending.count + 1
            let task = Task {
                await previous?.value
                do throws(SDKException) {
                    try await self.setRemoteErrorReportingEnabled(enabled)
                } catch {
                    SDKLogger(category: "ErrorReporting").warning(
                        "Remote error reporting not turned \(enabled ? "on" : "off"): \(error.message)"
                    )
                    // `RunAnywhere.loggingConfiguration` must not say on when nothing took it,
                    // unless a later switch has been recorded since.
                    let latest = pendingSentrySwitch.withLock { $0.count == number }
                    if enabled, latest, RunAnywhere.shared === self { RemoteReportingSwitch.shared.record(false) }
                }
            }
            pending = (task, number)
            return task
        }
    }
}

/// One instance's error reporting: its sink in ``RemoteErrorReporting`` and its uploader.
actor ErrorReporting: InstanceService {
    private var sink: UUID?
    private(set) var uploader: ErrorReportUploader?

    var isOn: Bool { sink != nil }

    func start(
        dsn: SentryDSN?,
        controlPlaneQueue: TelemetryQueue?,
        paths: SDKPaths,
        environment: String
    )
        async throws(SDKException)
    {
        var queues = controlPlaneQueue.map { [$0] } ?? []
        if let dsn {
            let queue = try TelemetryQueue(
                url: paths.errorReportQueueFile,
                capacity: RunAnywhereSDK.defaultErrorReportCapacity
            )
            let uploader = ErrorReportUploader(dsn: dsn, queue: queue, environment: environment)
            await uploader.start()
            self.uploader = uploader
            queues.append(queue)
        }
        let uploader = self.uploader
        sink = RemoteErrorReporting.add(RemoteErrorReporting.Sink(queues: queues, wake: { uploader?.wake() }))
    }

    /// Stops reporting; the instance is shutting down.
    func shutdown() async { await stop() }

    func stop() async {
        if let sink { RemoteErrorReporting.remove(sink) }
        sink = nil
        await uploader?.stop()
        uploader = nil
    }
}
