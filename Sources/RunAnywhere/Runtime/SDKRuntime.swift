import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The composition root: builds and holds every service of one initialized SDK.
///
/// Each ``RunAnywhereSDK`` keeps one of these, built from its own paths and backends, so
/// nothing below reaches for a global.
package final class SDKRuntime: Sendable {
    package let params: SDKInitParams
    package let paths: SDKPaths
    package let events: EventBus
    package let services: ServiceRegistry
    package let registry: ModelRegistry
    package let downloads: DownloadManager
    package let llm: LLMCapability
    let vlm: LLMCapability
    let stt: STTCapability
    let tts: TTSCapability
    let vad: VADCapability
    package let embeddings: EmbeddingsCapability
    package let reranking: RerankCapability
    let wakeWord: WakeWordCapability
    let diarization: DiarizationCapability
    let voiceAgent: VoiceAgentCapability
    let router: ModelRouter
    /// The model each capability has loaded, readable without waiting.
    let currentModels: LoadedModels
    /// The plugins loaded from files.
    let plugins = PluginSet()
    /// What modules run beside this instance (the control plane's agent…), by type.
    private let instanceServices = Mutex<[ObjectIdentifier: any InstanceService]>([:])

    private let servicesInit = Mutex<Task<Void, Never>?>(nil)
    private let servicesState = Mutex<(ready: Bool, offline: Bool)>((false, false))
    private let logger = SDKLogger(category: "SDK")

    /// Phase 1: creates folders, registers the modules' services, then loads the registry
    /// (with discovery, in which the modules' inspectors take part).
    init(params: SDKInitParams, paths: SDKPaths, events: EventBus, modules: [any BackendModule]) throws(SDKException) {
        self.params = params
        self.paths = paths
        self.events = events
        currentModels = LoadedModels(events: events)
        try paths.createDirectories()
        // Modules first: their inspectors take part in discovering models at load.
        services = ServiceRegistry()
        for module in modules { module.register(with: services) }
        plugins.loadFolders(Self.pluginFolders(paths), into: services, linked: modules.map(\.name))
        registry = ModelRegistry(paths: paths, inspectors: services.inspectors)
        try registry.load()
        downloads = DownloadManager(registry: registry, paths: paths, events: events)
        router = ModelRouter(
            secrets: { () throws(SDKException) -> SecureStore in try SecureStore.forSDK(paths: paths) },
            availableMemory: { HardwareProfile.current().memoryAvailableBytes }
        )
        llm = LLMCapability(services: services, registry: registry, events: events, router: router)
        vlm = LLMCapability(services: services, registry: registry, events: events, router: router, kind: .vision)
        stt = STTCapability(services: services, registry: registry, events: events, router: router)
        tts = TTSCapability(services: services, registry: registry, events: events)
        vad = VADCapability(services: services, registry: registry, events: events)
        embeddings = EmbeddingsCapability(services: services, registry: registry, events: events, router: router)
        reranking = RerankCapability(services: services, registry: registry, events: events)
        wakeWord = WakeWordCapability(services: services, stt: stt)
        diarization = DiarizationCapability(services: services, registry: registry, vad: vad, events: events)
        voiceAgent = VoiceAgentCapability(stt: stt, llm: llm, tts: tts, vad: vad, registry: registry)
        for offer in services.instanceServices {
            guard let service = offer.factory(self) else { continue }
            instanceServices.withLock { $0[ObjectIdentifier(type(of: service))] = service }
        }
    }

    /// This instance's service of type `type`, if a module runs one.
    package func instanceService<Service: InstanceService>(_ type: Service.Type) -> Service? {
        instanceServices.withLock { $0[ObjectIdentifier(type)] as? Service }
    }

    /// This instance's service of type `type`, made and attached by `make` on first use.
    package func instanceService<Service: InstanceService>(
        _ type: Service.Type,
        attaching make: () -> Service
    ) -> Service {
        instanceServices.withLock { services in
            if let service = services[ObjectIdentifier(type)] as? Service { return service }
            let service = make()
            services[ObjectIdentifier(type)] = service
            return service
        }
    }

    var areServicesReady: Bool { servicesState.withLock { $0.ready } }
    var isOffline: Bool { servicesState.withLock { $0.offline } }

    /// Phase 2, shared by concurrent callers: every step that may need the network or
    /// more time. A failing step is logged and leaves the SDK usable in offline mode.
    func completeServicesInitialization() async {
        let task = servicesInit.withLock { task -> Task<Void, Never> in
            if let task { return task }
            let new = Task { await self.performServicesInitialization() }
            task = new
            return new
        }
        await task.value
    }

    private func performServicesInitialization() async {
        let start = ContinuousClock.now
        var offline = false
        if params.configuredBaseURL == nil {
            // No backend to talk to: models, generation and everything on-device still work.
            offline = true
        }
        cleanStaleTempFiles()
        for service in instanceServices.withLock({ Array($0.values) }) {
            // Never a failed start: a service that cannot reach its server tries again later.
            let online = await service.start()
            offline = offline || !online
        }
        servicesState.withLock { $0 = (true, offline) }
        let ms = start.duration(to: .now).milliseconds
        logger.info("Services ready in \(String(printf: "%.1f", ms)) ms\(offline ? " (offline mode)" : "")")
        events.publish(.servicesReady(durationMs: ms, offline: offline))
    }

    /// Removes what earlier runs left in `tmp/`: interrupted imports and removals, and
    /// partial downloads nobody will resume (the model is gone, already downloaded, or the
    /// partial is older than a week). A download another process holds the lock of stays.
    private func cleanStaleTempFiles() {
        let fm = FileManager.default
        let now = Date()
        // By path throughout: URL resource values are full Foundation's, not FoundationEssentials'.
        func age(_ url: URL) -> TimeInterval {
            let modified = (try? fm.attributesOfItem(atPath: url.path)[.modificationDate]) as? Date ?? .distantPast
            return now.timeIntervalSince(modified)
        }
        func contents(of folder: URL) -> [URL]? {
            (try? fm.contentsOfDirectory(atPath: folder.path))?.map { folder.appendingPathComponent($0) }
        }
        let active = Set(downloads.activeDownloads)
        if let items = contents(of: paths.downloadsDirectory) {
            for item in items {
                let id = item.lastPathComponent
                guard !active.contains(id), !FileLock.isHeld(item.appendingPathComponent(DownloadManager.lockName))
                else { continue }
                let model = try? registry.get(id)
                let resumable = model.map { $0.isDownloadable && !$0.isDownloaded } ?? false
                if !resumable || age(item) > 7 * 86_400 {
                    try? fm.removeItem(at: item)
                    logger.info("Removed the stale download folder \(item.path)")
                }
            }
        }
        guard let items = contents(of: paths.tempDirectory) else { return }
        for item in items where item.lastPathComponent != paths.downloadsDirectory.lastPathComponent && age(item) > 3600
        {
            try? fm.removeItem(at: item)
            logger.info("Removed the stale temporary \(item.path)")
        }
    }

    /// Deletes everything in `tmp/` that no running download uses; returns the bytes freed.
    func cleanTempFiles() -> Int64 {
        let active = Set(downloads.activeDownloads)
        var freed = FileSystem.removeContents(of: paths.downloadsDirectory) { item in
            active.contains(item.lastPathComponent)
                || FileLock.isHeld(item.appendingPathComponent(DownloadManager.lockName))
        }
        freed += FileSystem.removeContents(of: paths.tempDirectory) {
            $0.lastPathComponent == self.paths.downloadsDirectory.lastPathComponent
        }
        return freed
    }

    func shutdown() async {
        for service in instanceServices.withLock({ Array($0.values) }) {
            await service.shutdown()
        }
        await downloads.cancelAll()
        await llm.unload()
        await vlm.unload()
        await stt.unload()
        await tts.shutdown()
        await vad.unload()
        await embeddings.unload()
        await reranking.unload()
        await diarization.unload()
    }

    /// The folders whose plugins initialization loads: the home's `plugins/`, then
    /// `RUNANYWHERE_PLUGIN_PATH`'s.
    static func pluginFolders(_ paths: SDKPaths) -> [URL] {
        let extra = ProcessInfo.processInfo.environment[PluginLoader.pathVariable]?.split(separator: ":") ?? []
        var seen: Set<String> = []
        // A folder named twice (the home's again, say) is read once.
        return ([paths.pluginsDirectory] + extra.map { URL(fileURLWithPath: String($0), isDirectory: true) })
            .filter { seen.insert($0.standardizedFileURL.resolvingSymlinksInPath().path).inserted }
    }

    /// Unloads `id` from whichever capability holds it.
    func unloadEverywhere(_ id: String) async {
        if await llm.currentModel?.id == id { await llm.unload() }
        await llm.forgetLoRA(id)
        if await vlm.currentModel?.id == id { await vlm.unload() }
        if await stt.currentModel?.id == id { await stt.unload() }
        if await tts.currentModel?.id == id { await tts.unload() }
        if await vad.currentModel?.id == id { await vad.unload() }
        if await embeddings.currentModel?.id == id { await embeddings.unload() }
        if await reranking.currentModel?.id == id { await reranking.unload() }
        if await diarization.currentModel?.id == id { await diarization.unload() }
    }
}
