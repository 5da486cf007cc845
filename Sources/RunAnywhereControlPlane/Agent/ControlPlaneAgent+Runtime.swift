@_spi(Backend) internal import RunAnywhere

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

extension ControlPlaneAgent {
    /// The agent for an instance, when there is a control plane to reach: a base URL and an API
    /// key. `nil` otherwise, and when the telemetry queue cannot be opened (logged; the SDK works
    /// on without it). From then on, every event the instance publishes is queued for upload.
    static func make(
        for runtime: SDKRuntime,
        settings: ControlPlaneSettings,
        connection: (URL) -> any ControlPlaneConnection
    ) -> ControlPlaneAgent? {
        let params = runtime.params
        guard let baseURL = params.configuredBaseURL, let apiKey = params.configuredAPIKey else { return nil }
        let paths = runtime.paths
        let logger = SDKLogger(category: "ControlPlane")
        let queue: TelemetryQueue
        do throws(SDKException) {
            queue = try TelemetryQueue(url: paths.telemetryQueueFile, capacity: settings.maximumQueuedEvents)
        } catch {
            logger.error("No control plane this run: \(error.message)")
            return nil
        }
        let registry = runtime.registry
        let downloads = runtime.downloads
        let events = runtime.events
        let telemetryLogger = SDKLogger(category: "Telemetry")
        // On the publisher's thread: the event is on disk when the call that caused it returns.
        let observer = events.addObserver { event in
            guard let telemetry = TelemetryEvent(event) else { return }
            do throws(SDKException) {
                try queue.enqueue(telemetry)
            } catch {
                telemetryLogger.warning("Telemetry event lost: \(error.message)")
            }
        }
        return ControlPlaneAgent(
            connection: connection(baseURL),
            settings: settings,
            apiKey: apiKey,
            queue: queue,
            secrets: { () throws(SDKException) -> SecureStore in try SecureStore.forSDK(paths: paths) },
            deviceDescription: { DeviceDescription.current() },
            apply: { assignments in
                await applyAssignments(
                    assignments,
                    registry: registry,
                    downloads: downloads,
                    events: events,
                    logger: logger
                )
            },
            stopObserving: { events.removeObserver(observer) }
        )
    }

    /// Registers assigned models the registry does not have and starts the downloads of the
    /// required ones. A bad assignment (unknown category, invalid id or file) is logged and
    /// skipped: one wrong entry on the server must not stop the others.
    static func applyAssignments(
        _ assignments: [ModelAssignment],
        registry: ModelRegistry,
        downloads: DownloadManager,
        events: EventBus,
        logger: SDKLogger
    ) async {
        for assignment in assignments {
            do throws(SDKException) {
                let id = assignment.modelId
                if (try? registry.get(id)) == nil {
                    guard let category = ModelCategory(rawValue: assignment.category) else {
                        throw SDKException(.invalidInput, "unknown category '\(assignment.category)'")
                    }
                    guard let primary = assignment.files.first else {
                        throw SDKException(.invalidInput, "no files")
                    }
                    let artifact: ModelArtifact =
                        assignment.files.count == 1
                        ? .file(primary) : .files(assignment.files, primaryFile: primary.fileName)
                    var model = try ModelInfo.downloadable(
                        artifact: artifact,
                        id: id,
                        name: assignment.name,
                        framework: InferenceFramework(rawValue: assignment.framework),
                        category: category,
                        format: ModelFormat.guess(fromFileName: primary.fileName),
                        strategies: registry.strategies
                    )
                    model.contextLength = assignment.contextLength
                    try registry.register(model)
                    events.publish(.modelRegistered(modelId: id))
                    logger.info("Registered the assigned model \(id)")
                }
                if assignment.required, try registry.get(id).isDownloaded == false {
                    // The download belongs to the SDK; its events report how it went.
                    _ = try downloads.download(id)
                }
            } catch {
                logger.warning("Skipped the assigned model '\(assignment.modelId)': \(error.message)")
            }
        }
    }
}

extension DeviceDescription {
    /// This device, from the hardware profile.
    static func current() -> DeviceDescription {
        let profile = HardwareProfile.current()
        #if os(Linux)
        let platform = "linux"
        #elseif os(macOS)
        let platform = "macos"
        #elseif os(iOS)
        let platform = "ios"
        #else
        let platform = "other"
        #endif
        return DeviceDescription(
            sdkVersion: RunAnywhere.version,
            platform: platform,
            os: profile.os,
            osVersion: profile.osVersion,
            architecture: profile.architecture,
            cpu: profile.cpu,
            cores: profile.cores,
            memoryTotalBytes: profile.memoryTotalBytes,
            gpu: profile.gpu?.name,
            appId: Self.bundleIdentifier
        )
    }
}

extension DeviceDescription {
    /// The app's bundle identifier: Apple platforms have one; a Linux program has none (and
    /// `Bundle` is full Foundation's there).
    static var bundleIdentifier: String? {
        #if canImport(FoundationEssentials)
        nil
        #else
        Bundle.main.bundleIdentifier
        #endif
    }
}
