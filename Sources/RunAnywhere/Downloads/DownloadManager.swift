import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Downloads registered models: fetch, verify, unpack, install.
///
/// A download works in `tmp/downloads/<id>/`, which holds one `<file>.part` per remote
/// file, a manifest saying what they are, and a lock that keeps another process out. It
/// goes through these steps, each reported on the job's stream:
///
/// 1. sizes: HEAD requests for files whose size was not registered, then a disk-space
///    check against the free space and ``DownloadConfiguration/storageLimitBytes``;
/// 2. downloading: each file streamed to its `.part`, resumed with a Range request after
///    a dropped connection and retried with exponential back-off after 5xx answers and
///    network errors; a partial file left by an earlier failed run is resumed too;
/// 3. validating: SHA-256 of every file that has one registered;
/// 4. extracting: archives unpacked into a staging folder with every entry checked;
/// 5. install: the staging folder renamed into `models/<framework>/<id>/` and the entry
///    marked downloaded.
///
/// A cancel, a checksum mismatch or a refused archive removes the work folder. A network
/// failure that outlasts the retries keeps the partial files, so the next attempt resumes.
package final class DownloadManager: Sendable {
    private let registry: ModelRegistry
    private let paths: SDKPaths
    private let events: EventBus
    private let jobs = Mutex<[String: DownloadJob]>([:])
    private let config = Mutex(DownloadConfiguration())
    private let logger = SDKLogger(category: "Download")

    static let lockName = ".lock"
    private static let manifestName = "download.json"

    init(registry: ModelRegistry, paths: SDKPaths, events: EventBus) {
        self.registry = registry
        self.paths = paths
        self.events = events
    }

    var configuration: DownloadConfiguration {
        get { config.withLock { $0 } }
        set { config.withLock { $0 = newValue } }
    }

    /// Ids of the models downloading now.
    var activeDownloads: [String] { jobs.withLock { $0.keys.sorted() } }

    // MARK: Starting and stopping

    /// Starts downloading `id`, or joins the download already running.
    package func download(_ id: String) throws(SDKException) -> AsyncStream<DownloadProgress> {
        let model = try registry.get(id)
        if let path = model.localPath, FileSystem.isReadableFile(path) {
            let job = DownloadJob(modelId: id)
            let stream = job.subscribe()
            job.publish(
                DownloadProgress(
                    modelId: id,
                    stage: .completed,
                    bytesDownloaded: model.sizeBytes ?? 0,
                    totalBytes: model.sizeBytes,
                    stageProgress: 1,
                    model: model
                )
            )
            return stream
        }
        guard let artifact = model.artifact else {
            throw SDKException(
                .modelNotDownloadable,
                "Model '\(id)' has no download source",
                recovery: "Register it with a URL (RunAnywhere.registerModel(id:name:url:…)) or import its files"
            )
        }
        try artifact.validate(canDownload: registry.strategies.canHandle)
        let (job, isNew) = jobs.withLock { jobs -> (DownloadJob, Bool) in
            if let job = jobs[id] { return (job, false) }
            let job = DownloadJob(modelId: id)
            jobs[id] = job
            return (job, true)
        }
        let stream = job.subscribe()
        if isNew {
            job.publish(DownloadProgress(modelId: id, stage: .downloading, totalBytes: artifact.knownDownloadSize))
            job.attach(Task { await self.run(job, model: model, artifact: artifact) })
        }
        return stream
    }

    /// Cancels the download of `id`; returns whether one was running.
    @discardableResult
    func cancel(_ id: String) -> Bool {
        guard let job = jobs.withLock({ $0[id] }) else { return false }
        job.cancel()
        return true
    }

    /// Cancels every download and waits for them to wind down.
    func cancelAll() async {
        let running = jobs.withLock { Array($0.values) }
        for job in running {
            job.cancel()
            for await _ in job.subscribe() {}
        }
    }

    // MARK: The job

    private func run(_ job: DownloadJob, model: ModelInfo, artifact: ModelArtifact) async {
        let id = model.id
        let start = ContinuousClock.now
        let workDir = paths.downloadDirectory(for: id)
        events.publish(.downloadStarted(modelId: id))
        logger.info("Downloading \(id) from \(artifact.remoteFiles.map(\.url.absoluteString).joined(separator: ", "))")
        do {
            try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        } catch {
            finish(job, failure: SDKException(.fileSystemError, "Cannot create \(workDir.path)", underlying: error))
            return
        }
        // Another process sharing this home may be downloading the same model: its files are
        // left alone, whatever happens here. Start-up cleanup probes locks for microseconds,
        // so a lock that is busy only that long is waited for.
        let lockFile = workDir.appendingPathComponent(Self.lockName)
        var acquired = FileLock(lockFile)
        for _ in 0..<20 where acquired == nil {
            try? await Task.sleep(for: .milliseconds(10))
            acquired = FileLock(lockFile)
        }
        guard let lock = acquired else {
            finish(
                job,
                failure: SDKException(
                    .downloadFailed,
                    "Another process is downloading '\(id)'",
                    recovery: "Wait for it to finish; the model is then available here too"
                )
            )
            return
        }
        let outcome: Result<ModelInfo, SDKException>
        do throws(SDKException) {
            outcome = .success(try await perform(job, model: model, artifact: artifact, workDir: workDir))
        } catch {
            // Only bytes received before a network failure are worth resuming.
            let resumable =
                error.code == .downloadFailed && !job.cancelFlag.isCancelled
                && artifact.remoteFiles.allSatisfy {
                    (try? registry.strategies.strategy(for: $0.url))?.supportsResume ?? false
                }
                && artifact.remoteFiles.contains {
                    FileSystem.allocatedSize(of: workDir.appendingPathComponent($0.fileName + ".part")) > 0
                }
            if !resumable {
                try? FileManager.default.removeItem(at: workDir)
            }
            outcome = .failure(
                job.cancelFlag.isCancelled && error.code != .downloadCancelled
                    ? SDKException(.downloadCancelled, "The download of '\(id)' was cancelled") : error
            )
        }
        // Released before the last report, so a listener that starts again at once gets the lock.
        lock.release()
        switch outcome {
        case .success(let installed):
            let bytes = installed.sizeBytes ?? 0
            let ms = start.duration(to: .now).milliseconds
            logger.info("Downloaded \(id): \(bytes) bytes in \(String(printf: "%.0f", ms)) ms")
            events.publish(.downloadCompleted(modelId: id, bytes: bytes, durationMs: ms))
            finish(
                job,
                with: DownloadProgress(
                    modelId: id,
                    stage: .completed,
                    bytesDownloaded: bytes,
                    totalBytes: bytes,
                    stageProgress: 1,
                    model: installed
                )
            )
        case .failure(let error):
            finish(job, failure: error)
        }
    }

    private func finish(_ job: DownloadJob, failure error: SDKException) {
        logger.warning("Download of \(job.modelId) failed: \(error)")
        events.publish(.downloadFailed(modelId: job.modelId, error: error))
        finish(job, with: DownloadProgress(modelId: job.modelId, stage: .failed, error: error))
    }

    private func finish(_ job: DownloadJob, with final: DownloadProgress) {
        // Out of the table before the last report, so a listener that retries at once starts afresh.
        jobs.withLock { jobs in
            if jobs[job.modelId] === job { jobs[job.modelId] = nil }
        }
        job.publish(final)
    }

    /// What a work folder holds, so a later run resumes only partial files of the same artifact.
    private struct Manifest: Codable {
        var artifact: ModelArtifact
        var etags: [String: String] = [:]
    }

    private func perform(
        _ job: DownloadJob,
        model: ModelInfo,
        artifact registered: ModelArtifact,
        workDir: URL
    ) async throws(SDKException) -> ModelInfo {
        // The artifact as staged: an archive's primary file, when found on unpacking, is filled in.
        var artifact = registered
        let config = configuration
        let fm = FileManager.default

        let manifestURL = workDir.appendingPathComponent(Self.manifestName)
        var manifest = Manifest(artifact: artifact)
        if let stored = (try? Data(contentsOf: manifestURL)).flatMap({
            try? ModelRegistry.decoder.decode(Manifest.self, from: $0)
        }),
            stored.artifact == artifact
        {
            manifest = stored
        } else {
            FileSystem.removeContents(of: workDir) { $0.lastPathComponent == Self.lockName }
        }
        try saveManifest(manifest, to: manifestURL)
        let files = artifact.remoteFiles
        let parts = files.map { workDir.appendingPathComponent($0.fileName + ".part") }
        var strategies: [any DownloadStrategy] = []
        for file in files { strategies.append(try registry.strategies.strategy(for: file.url)) }
        var machine = DownloadStateMachine(
            modelId: model.id,
            files: files.indices.map { (files[$0].fileName, files[$0].sizeBytes, strategies[$0].name) },
            isArchive: { if case .archive = artifact { true } else { false } }(),
            bytesOnDisk: parts.reduce(Int64(0)) { $0 + FileSystem.allocatedSize(of: $1) }
        )
        // A resume token (HTTP: the ETag) goes to the manifest as soon as a strategy has one, so
        // a later run that resumes sees it.
        let saved = Mutex(manifest)
        let stage = workDir.appendingPathComponent("stage", isDirectory: true)
        var action = machine.start()
        while true {
            switch action {
            case .resolveSize(let index):
                let (strategy, file) = (strategies[index], files[index])
                let size = try await Self.run(strategy, on: file) {
                    try await strategy.size(of: file.url, configuration: config)
                }
                action =
                    job.cancelFlag.isCancelled ? machine.cancelled() : machine.sizeResolved(index: index, size: size)
            case .checkSpace:
                action = machine.spaceAvailable(availableBytes(config: config))
            case .fetch(let index, let before):
                let (strategy, file) = (strategies[index], files[index])
                if !strategy.supportsResume { try? fm.removeItem(at: parts[index]) }
                let cancel = job.cancelFlag
                let total = machine.totalBytes
                let request = DownloadRequest(
                    url: file.url,
                    destination: parts[index],
                    expectedSize: machine.size(of: index),
                    resumeToken: manifest.etags[file.fileName],
                    configuration: config,
                    isCancelled: { cancel.isCancelled },
                    progress: { bytes, retry in
                        job.publish(
                            job.transferReport(bytes: before + bytes, total: total, file: file.fileName, retry: retry)
                        )
                    },
                    saveResumeToken: { [self] token in
                        saved.withLock { manifest in
                            manifest.etags[file.fileName] = token
                            try? saveManifest(manifest, to: manifestURL)
                        }
                    }
                )
                let size = try await Self.run(strategy, on: file) { try await strategy.fetch(request) }
                action =
                    job.cancelFlag.isCancelled
                    ? machine.cancelled()
                    : machine.fetched(index: index, reported: size, written: FileSystem.fileSize(parts[index]))
            case .verifyChecksums(let downloaded):
                try await verifyChecksums(of: files, at: parts, job: job, downloaded: downloaded)
                action = machine.verified()
            case .stage(let downloaded):
                artifact = try await stageFiles(
                    of: artifact,
                    from: parts,
                    into: stage,
                    job: job,
                    downloaded: downloaded,
                    config: config
                )
                action = machine.staged()
            case .install:
                let installed = try install(model, artifact: artifact, stagedAt: stage)
                try? fm.removeItem(at: workDir)
                action = machine.installed()
                if action == .finished { return installed }
            case .discardPartAndFail(let index, let error):
                try? fm.removeItem(at: parts[index])
                throw error
            case .fail(let error):
                throw error
            case .finished:
                throw SDKException(.internalError, "The download of '\(model.id)' finished without installing")
            }
        }
    }

    /// Inspects the staged model and moves it into the store.
    private func install(
        _ registered: ModelInfo,
        artifact: ModelArtifact,
        stagedAt stage: URL
    ) throws(SDKException) -> ModelInfo {
        var model = registered
        if model.artifact != artifact {
            // The primary file was found on unpacking: it names the format if registration could not.
            model.artifact = artifact
            if model.format == .unknown { model.format = ModelFormat.guess(fromFileName: artifact.primaryPath) }
        }
        let primary = stage.appendingPathComponent(artifact.primaryPath)
        var updated = try registry.inspectors.inspect(model, file: primary)
        if let projector = model.visionProjectorFile {
            try VisionProjectorFile(contentsOf: stage.appendingPathComponent(projector))
                .check(against: primary, projectorName: projector)
        }
        updated.name = model.name  // the name given at registration wins over the file's
        updated.sizeBytes = FileSystem.allocatedSize(of: stage)
        updated.downloadedAt = Date()
        return try registry.install(updated, stagedAt: stage)
    }

    /// Compares every file that has a registered SHA-256 with its digest.
    private func verifyChecksums(
        of files: [RemoteFile],
        at parts: [URL],
        job: DownloadJob,
        downloaded: Int64
    ) async throws(SDKException) {
        let checked = files.indices.filter { files[$0].sha256 != nil }
        let total = max(1, checked.reduce(Int64(0)) { $0 + FileSystem.allocatedSize(of: parts[$1]) })
        var hashed: Int64 = 0
        for index in checked {
            let (file, part, base) = (files[index], parts[index], hashed)
            let report = { @Sendable (bytes: Int64) in
                job.publish(
                    DownloadProgress(
                        modelId: job.modelId,
                        stage: .validating,
                        bytesDownloaded: downloaded,
                        totalBytes: downloaded,
                        stageProgress: Double(base + bytes) / Double(total),
                        currentFile: file.fileName
                    )
                )
            }
            report(0)
            let result = await runOnDetachedThread(name: "runanywhere-sha256") { () -> Result<String, SDKException> in
                var lastReport = ContinuousClock.now
                return Result { () throws(SDKException) in
                    try FileSystem.sha256(of: part, cancel: job.cancelFlag) { bytes in
                        guard lastReport.duration(to: .now) >= .milliseconds(100) else { return }
                        lastReport = .now
                        report(bytes)
                    }
                }
            }
            let digest = try result.get()
            hashed += FileSystem.allocatedSize(of: part)
            guard digest == file.sha256 else {
                throw SDKException(
                    .checksumMismatch,
                    "\(file.fileName) of model '\(job.modelId)' has SHA-256 \(digest), expected \(file.sha256 ?? "")",
                    recovery: "The file is corrupt or was replaced on the server; its download was discarded"
                )
            }
        }
    }

    /// Fills `stage` with the model's folder as it will be installed: the downloaded files
    /// renamed, or the archive unpacked (every entry checked) and its listed files present.
    /// Returns the artifact as staged: an archive whose primary file was left to be found
    /// names the one found.
    private func stageFiles(
        of artifact: ModelArtifact,
        from parts: [URL],
        into stage: URL,
        job: DownloadJob,
        downloaded: Int64,
        config: DownloadConfiguration
    ) async throws(SDKException) -> ModelArtifact {
        let fm = FileManager.default
        try? fm.removeItem(at: stage)
        do {
            try fm.createDirectory(at: stage, withIntermediateDirectories: true)
        } catch {
            throw SDKException(.fileSystemError, "Cannot create \(stage.path)", underlying: error)
        }
        switch artifact {
        case .file, .files:
            for (part, file) in zip(parts, artifact.remoteFiles) {
                try FileSystem.transfer(part, to: stage.appendingPathComponent(file.fileName), move: true)
            }
        case .archive(let archive):
            let name = archive.url.lastPathComponent
            let report = { @Sendable (fraction: Double) in
                job.publish(
                    DownloadProgress(
                        modelId: job.modelId,
                        stage: .extracting,
                        bytesDownloaded: downloaded,
                        totalBytes: downloaded,
                        stageProgress: fraction,
                        currentFile: name
                    )
                )
            }
            report(0)
            let (part, maxBytes) = (parts[0], availableBytes(config: config))
            let result = await runOnDetachedThread(name: "runanywhere-unpack") { () -> Result<[String], SDKException> in
                var lastReport = ContinuousClock.now
                return Result { () throws(SDKException) in
                    try ArchiveExtractor.extract(
                        part,
                        type: archive.type,
                        into: stage,
                        maxBytes: maxBytes,
                        cancel: job.cancelFlag
                    ) { fraction in
                        guard lastReport.duration(to: .now) >= .milliseconds(100) else { return }
                        lastReport = .now
                        report(fraction)
                    }
                }
            }
            _ = try result.get()
            var staged = archive
            if staged.primaryFile.isEmpty, let structure = staged.structure {
                staged.primaryFile = try structure.primaryFile(in: stage)
            }
            for path in [staged.primaryFile] + staged.expectedFiles
            where !FileSystem.isReadableFile(stage.appendingPathComponent(path)) {
                throw SDKException(
                    .invalidArchive,
                    "The archive of model '\(job.modelId)' has no file '\(path)'",
                    recovery: "Check primaryFile/expectedFiles against the archive's content"
                )
            }
            try? fm.removeItem(at: parts[0])
            return .archive(staged)
        }
        return artifact
    }

    /// Runs one call of a strategy; an error that is not an ``SDKException`` becomes
    /// `downloadFailed` naming the strategy and the file.
    private static func run<T: Sendable>(
        _ strategy: any DownloadStrategy,
        on file: RemoteFile,
        _ body: () async throws -> T
    ) async throws(SDKException) -> T {
        do {
            return try await body()
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(
                .downloadFailed,
                "The \(strategy.name) download strategy failed on \(file.url.absoluteString): \(error)",
                underlying: error
            )
        }
    }

    // MARK: Space

    /// Bytes a download may still use: free space less the reserve, and no more than the
    /// storage limit less what the SDK's home already holds.
    func availableBytes(config: DownloadConfiguration) -> Int64 {
        var available = FileSystem.volumeSpace(at: paths.home).freeBytes - config.reservedFreeBytes
        if let limit = config.storageLimitBytes {
            let used =
                FileSystem.allocatedSize(of: paths.modelsDirectory) + FileSystem.allocatedSize(of: paths.tempDirectory)
            available = min(available, limit - used)
        }
        return max(0, available)
    }

    // MARK: Helpers

    private func saveManifest(_ manifest: Manifest, to url: URL) throws(SDKException) {
        let data: Data
        do { data = try ModelRegistry.encoder.encode(manifest) } catch {
            throw SDKException(.internalError, "Cannot encode the download manifest", underlying: error)
        }
        try FileSystem.atomicWrite(data, to: url)
    }
}
