import Foundation
import Synchronization

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
final class DownloadManager: Sendable {
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
    func download(_ id: String) throws(SDKException) -> AsyncStream<DownloadProgress> {
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
        try artifact.validate()
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
            logger.info("Downloaded \(id): \(bytes) bytes in \(String(format: "%.0f", ms)) ms")
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
        artifact: ModelArtifact,
        workDir: URL
    ) async throws(SDKException) -> ModelInfo {
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

        // 1. Sizes and space.
        var sizes = files.map(\.sizeBytes)
        for (index, file) in files.enumerated() where sizes[index] == nil {
            sizes[index] = try await headSize(of: file, job: job, config: config)
        }
        let total: Int64? = sizes.allSatisfy { $0 != nil } ? sizes.reduce(0) { $0 + ($1 ?? 0) } : nil
        let onDisk = parts.reduce(Int64(0)) { $0 + FileSystem.allocatedSize(of: $1) }
        if let total {
            var needed = total - onDisk
            if case .archive = artifact { needed += total }  // unpacked content needs room beside the archive
            let available = availableBytes(config: config)
            guard needed <= available else {
                throw SDKException(
                    .insufficientStorage,
                    "Model '\(model.id)' needs \(needed.formattedBytes(.binary)) but only \(available.formattedBytes(.binary)) may be used",
                    recovery:
                        "Free space (RunAnywhere.deleteModel, cleanTempFiles) or raise DownloadConfiguration.storageLimitBytes"
                )
            }
        }

        // 2. Transfer.
        var done: Int64 = 0
        for (index, file) in files.enumerated() {
            var etag = manifest.etags[file.fileName]
            // The ETag goes to the manifest even when the transfer fails, so that a later run
            // resumes with If-Range and never splices two versions of a file.
            func rememberETag() {
                guard let etag, manifest.etags[file.fileName] != etag else { return }
                manifest.etags[file.fileName] = etag
                try? saveManifest(manifest, to: manifestURL)
            }
            let before = done
            let size: Int64
            do {
                size = try await fetch(
                    file,
                    to: parts[index],
                    expectedSize: sizes[index],
                    etag: &etag,
                    job: job,
                    config: config
                ) { bytes, retry in
                    job.publish(
                        job.transferReport(bytes: before + bytes, total: total, file: file.fileName, retry: retry)
                    )
                }
            } catch {
                rememberETag()
                throw error
            }
            rememberETag()
            done += size
        }

        // 3. Checksums, 4. staging: files renamed, archives unpacked.
        try await verifyChecksums(of: files, at: parts, job: job, downloaded: done)
        let stage = workDir.appendingPathComponent("stage", isDirectory: true)
        try await stageFiles(of: artifact, from: parts, into: stage, job: job, downloaded: done, config: config)

        // 5. Install.
        let primary = stage.appendingPathComponent(artifact.primaryPath)
        var updated = try registry.inspectors.inspect(model, file: primary)
        if let projector = model.visionProjectorFile {
            try VisionProjectorFile(contentsOf: stage.appendingPathComponent(projector))
                .check(against: primary, projectorName: projector)
        }
        updated.name = model.name  // the name given at registration wins over the file's
        updated.sizeBytes = FileSystem.allocatedSize(of: stage)
        updated.downloadedAt = Date()
        let installed = try registry.install(updated, stagedAt: stage)
        try? fm.removeItem(at: workDir)
        return installed
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
    private func stageFiles(
        of artifact: ModelArtifact,
        from parts: [URL],
        into stage: URL,
        job: DownloadJob,
        downloaded: Int64,
        config: DownloadConfiguration
    ) async throws(SDKException) {
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
            for path in [archive.primaryFile] + archive.expectedFiles
            where !FileSystem.isReadableFile(stage.appendingPathComponent(path)) {
                throw SDKException(
                    .invalidArchive,
                    "The archive of model '\(job.modelId)' has no file '\(path)'",
                    recovery: "Check primaryFile/expectedFiles against the archive's content"
                )
            }
            try? fm.removeItem(at: parts[0])
        }
    }

    /// The size a HEAD request reports, with the same retries as a transfer; `nil` when
    /// the server does not say (the download then goes ahead without a space check).
    private func headSize(
        of file: RemoteFile,
        job: DownloadJob,
        config: DownloadConfiguration
    ) async throws(SDKException) -> Int64? {
        var retry = 0
        while true {
            let options = HTTPTransfer.Options(connectTimeout: config.connectTimeout, stallTimeout: config.stallTimeout)
            let url = file.url
            let result = await runOnDetachedThread(name: "runanywhere-download") {
                HTTPTransfer.head(url, options: options)
            }
            if job.cancelFlag.isCancelled { throw SDKException(.downloadCancelled, "The download was cancelled") }
            switch result {
            case .success(let head) where (200..<300).contains(head.status):
                return head.contentLength
            case .success(let head) where HTTPTransfer.isRetryable(status: head.status) && retry < config.maxRetries:
                break
            case .success(let head) where head.status == 405 || head.status == 501:
                return nil  // no HEAD here; GET tells the size
            case .success(let head):
                throw Self.httpError(head.status, file: file)
            case .failure(let failure)
            where HTTPTransfer.isRetryable(curlCode: failure.code) && retry < config.maxRetries:
                break
            case .failure(let failure):
                throw Self.transportError(failure.message, file: file, retries: retry)
            }
            retry += 1
            try await backOff(retry, job: job, config: config, file: file)
        }
    }

    /// Streams one file into its `.part`, resuming and retrying; returns its final size.
    private func fetch(
        _ file: RemoteFile,
        to part: URL,
        expectedSize: Int64?,
        etag: inout String?,
        job: DownloadJob,
        config: DownloadConfiguration,
        report: @escaping @Sendable (Int64, Int) -> Void
    ) async throws(SDKException) -> Int64 {
        var retry = 0
        while true {
            let fd = open(part.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SDKException(.fileSystemError, "Cannot open \(part.path): \(String(cString: strerror(errno)))")
            }
            var offset = Int64(lseek(fd, 0, SEEK_END))
            if let expectedSize, offset > expectedSize {
                _ = ftruncate(fd, 0)
                offset = 0
            }
            if let expectedSize, offset == expectedSize, offset > 0 {
                close(fd)
                report(offset, retry)
                return offset
            }
            let options = HTTPTransfer.Options(connectTimeout: config.connectTimeout, stallTimeout: config.stallTimeout)
            let (url, ifRange, cancel, attempt, start) = (file.url, etag, job.cancelFlag, retry, offset)
            report(offset, retry)
            let outcome = await runOnDetachedThread(name: "runanywhere-download") {
                HTTPTransfer.get(url, into: fd, offset: start, ifRange: ifRange, options: options, cancel: cancel) {
                    report($0, attempt)
                }
            }
            close(fd)
            switch outcome {
            case .finished(_, let size, let newEtag):
                etag = newEtag ?? etag
                if let expectedSize, size != expectedSize {
                    try? FileManager.default.removeItem(at: part)
                    throw SDKException(
                        .downloadFailed,
                        "\(file.fileName) is \(size) bytes on the server, but \(expectedSize) were registered",
                        recovery: "Correct the registered size, or register the model without one"
                    )
                }
                return size
            case .httpStatus(416) where offset > 0:
                // The partial file no longer matches the resource: start it over.
                try? FileManager.default.removeItem(at: part)
                etag = nil
            case .httpStatus(let status) where HTTPTransfer.isRetryable(status: status) && retry < config.maxRetries:
                break
            case .httpStatus(let status):
                throw Self.httpError(status, file: file)
            case .transport(let code, _, let newEtag)
            where HTTPTransfer.isRetryable(curlCode: code) && retry < config.maxRetries:
                etag = newEtag ?? etag
            case .transport(_, let message, let newEtag):
                etag = newEtag ?? etag
                throw Self.transportError(message, file: file, retries: retry)
            case .cancelled:
                throw SDKException(.downloadCancelled, "The download was cancelled")
            case .writeFailed(let code):
                throw SDKException(
                    code == ENOSPC || code == EDQUOT ? .insufficientStorage : .fileSystemError,
                    "Cannot write \(part.path): \(String(cString: strerror(code)))"
                )
            }
            retry += 1
            try await backOff(retry, job: job, config: config, file: file)
        }
    }

    /// Waits before retry number `retry`; a cancel ends the wait at once.
    private func backOff(
        _ retry: Int,
        job: DownloadJob,
        config: DownloadConfiguration,
        file: RemoteFile
    ) async throws(SDKException) {
        let delay = config.delay(beforeRetry: retry)
        logger.info("Retry \(retry)/\(config.maxRetries) of \(file.fileName) in \(String(format: "%.2f", delay)) s")
        do {
            try await Task.sleep(for: .seconds(delay))
        } catch {
            throw SDKException(.downloadCancelled, "The download was cancelled")
        }
        if job.cancelFlag.isCancelled { throw SDKException(.downloadCancelled, "The download was cancelled") }
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

    private static func httpError(_ status: Int, file: RemoteFile) -> SDKException {
        let reason = [401: " (unauthorized)", 403: " (forbidden)", 404: " (not found)", 410: " (gone)"][status] ?? ""
        return SDKException(
            .downloadFailed,
            "\(file.url.absoluteString) answered HTTP \(status)\(reason)",
            recovery: status == 404 || status == 410 ? "Check the model's URL" : nil
        )
    }

    private static func transportError(_ message: String, file: RemoteFile, retries: Int) -> SDKException {
        SDKException(
            .downloadFailed,
            "Downloading \(file.url.absoluteString) failed\(retries > 0 ? " after \(retries) retries" : ""): \(message)",
            recovery: "Check the connection; downloading again resumes where this stopped"
        )
    }
}
