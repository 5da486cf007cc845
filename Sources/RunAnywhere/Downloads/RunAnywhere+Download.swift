#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    // MARK: Registration
    /// Registers a model that is one file at a URL, to fetch later with ``downloadModel(_:)``.
    ///
    /// Nothing is downloaded here. `sha256`, when given, is checked after the download;
    /// `sizeBytes`, when given, spares a HEAD request. `fileName` is the name the file gets
    /// on disk, by default the URL's last path component.
    ///
    /// ```swift
    /// try RunAnywhere.registerModel(id: "smollm2-135m-instruct", name: "SmolLM2 135M",
    ///                               url: URL(string: "https://example.com/SmolLM2-135M-Instruct-Q8_0.gguf")!,
    ///                               framework: .llamaCpp, category: .llm)
    /// for await progress in try RunAnywhere.downloadModel("smollm2-135m-instruct") {
    ///     print(progress.stage, progress.overallProgress)
    /// }
    /// ```
    ///
    /// - Throws: `.invalidModelId`, `.modelAlreadyExists`, or `.invalidInput` for a URL that
    ///   is not http(s), a malformed checksum or a negative size.
    @discardableResult
    public func registerModel(
        id: String,
        name: String,
        url: URL,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil,
        fileName: String? = nil,
        sha256: String? = nil,
        sizeBytes: Int64? = nil
    ) throws(SDKException) -> ModelInfo {
        let file = RemoteFile(url: url, fileName: fileName, sha256: sha256, sizeBytes: sizeBytes)
        return try register(
            artifact: .file(file),
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format ?? ModelFormat.guess(fromFileName: file.fileName)
        )
    }

    /// Registers a model by reference (``ModelReference``: `hf.co/ORG/REPO/FILE.gguf`, or
    /// `hf.co/ORG/REPO:QUANT` for its GGUF file of that quantization), to fetch later with
    /// ``downloadModel(_:)`` like any URL (resumed, checksummed).
    ///
    /// The hub (``DownloadConfiguration/huggingFaceEndpoint``, `HF_ENDPOINT`) is asked which
    /// file that is, its size and its SHA-256; `HF_TOKEN` (``DownloadConfiguration/huggingFaceToken``)
    /// goes with every request to the hub, for gated and private repositories.
    ///
    /// ```swift
    /// let model = try await sdk.registerModel(reference: "hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q8_0")
    /// for await progress in try sdk.downloadModel(model.id) { print(progress.overallProgress) }
    /// ```
    ///
    /// - Parameters:
    ///   - reference: The reference.
    ///   - id: The id to register it under; by default the file's name without `.gguf`,
    ///     lower-cased (`smollm2-135m-instruct-q8_0`).
    ///   - name: A display name; by default the reference.
    ///   - category: What the model is (a language model by default).
    ///   - framework: The engine that runs it (llama.cpp by default).
    /// - Throws: `.invalidInput` for a malformed reference; `.modelNotFound` when the hub has
    ///   no such repository, revision or file (the message lists its GGUF files);
    ///   `.downloadFailed` when the hub cannot be reached or refuses; `.modelAlreadyExists` when
    ///   the id is taken by another model (the same reference again returns the model).
    @discardableResult
    public func registerModel(
        reference: String,
        id: String? = nil,
        name: String? = nil,
        category: ModelCategory = .llm,
        framework: InferenceFramework = InferenceFramework("llamacpp")
    ) async throws(SDKException) -> ModelInfo {
        let parsed = try ModelReference(reference)
        let file = try await HuggingFaceHub.resolve(
            parsed,
            configuration: try downloadConfiguration(),
            temporaryDirectory: paths.tempDirectory
        )
        let chosen = id ?? Self.modelId(forFile: file.fileName)
        // The same reference again (a pull run twice) is the model already registered.
        if let existing = try? model(chosen), existing.artifact?.remoteFiles.map(\.url) == [file.url] {
            return existing
        }
        return try registerModel(
            id: chosen,
            name: name ?? parsed.description,
            url: file.url,
            framework: framework,
            category: category,
            fileName: file.fileName,
            sha256: file.sha256,
            sizeBytes: file.sizeBytes
        )
    }

    /// A model id made from a file's name: lower case, without `.gguf`, other characters as `-`.
    static func modelId(forFile name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        var stem = name.lowercased()
        if stem.hasSuffix(".gguf") { stem.removeLast(5) }
        let mapped = String(stem.map { allowed.contains($0) ? $0 : "-" }.prefix(128))
        let trimmed = mapped.drop { $0 == "." || $0 == "-" }
        return trimmed.isEmpty ? "model" : String(trimmed)
    }

    /// Registers a model shipped as an archive (`.zip`, `.tar.gz`, `.tar.bz2`, `.tar.xz`).
    ///
    /// The archive is unpacked into the model's folder keeping its layout;
    /// ``ModelArchive/primaryFile`` names the file engines open and
    /// ``ModelArchive/expectedFiles`` the others that must be there.
    ///
    /// ```swift
    /// let archive = try ModelArchive(url: URL(string: "https://example.com/piper-joe.tar.bz2")!,
    ///                                primaryFile: "piper-joe/model.onnx",
    ///                                expectedFiles: ["piper-joe/tokens.txt"])
    /// try RunAnywhere.registerModel(archive: archive, id: "piper-joe", name: "Joe",
    ///                               framework: .sherpaOnnx, category: .speechSynthesis)
    /// ```
    @discardableResult
    public func registerModel(
        archive: ModelArchive,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        try register(
            artifact: .archive(archive),
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format ?? ModelFormat.guess(fromFileName: archive.primaryFile)
        )
    }

    /// Registers a model made of several files fetched side by side (a model and its
    /// tokens or config); `primaryFile` names the one engines open.
    @discardableResult
    public func registerModel(
        multiFile files: [RemoteFile],
        primaryFile: String,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        try register(
            artifact: .files(files, primaryFile: primaryFile),
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format ?? ModelFormat.guess(fromFileName: primaryFile)
        )
    }

    /// Registers a model to download from `artifact`; every `registerModel` by URL, and
    /// `registerVLMModel`, come here.
    func register(
        artifact: ModelArtifact,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat,
        visionProjectorFile: String? = nil
    ) throws(SDKException) -> ModelInfo {
        let model = try ModelInfo.downloadable(
            artifact: artifact,
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format,
            visionProjectorFile: visionProjectorFile,
            strategies: try runtime().registry.strategies
        )
        try registerModel(model)
        return model
    }

    // MARK: Downloading
    /// Downloads a registered model's files into the store; reports arrive on the stream.
    ///
    /// The stream ends with a `.completed` report carrying the installed ``ModelInfo``, or
    /// a `.failed` one carrying the ``SDKException``: `.downloadFailed` (HTTP error, or the
    /// network failed past every retry), `.checksumMismatch`, `.insufficientStorage`,
    /// `.unsafeArchive`, `.invalidArchive` or `.downloadCancelled`. Once completed, the
    /// model loads like any other.
    ///
    /// Calling it again while the model downloads joins the same transfer. An already
    /// downloaded model completes at once. The download belongs to the SDK: to stop it,
    /// call ``cancelDownload(_:)``; dropping the stream does not.
    ///
    /// - Throws: `.modelNotFound`, or `.modelNotDownloadable` for a model without a URL.
    public func downloadModel(_ id: String) throws(SDKException) -> AsyncStream<DownloadProgress> {
        try runtime().downloads.download(id)
    }

    /// Downloads a model and returns it once installed; `onProgress` sees every report.
    ///
    /// ```swift
    /// let model = try await RunAnywhere.downloadModel("smollm2-135m-instruct") { progress in
    ///     print("\(Int(progress.overallProgress * 100))%")
    /// }
    /// try await RunAnywhere.loadModel(model.id)
    /// ```
    @discardableResult
    public func downloadModel(
        _ id: String,
        onProgress: @Sendable (DownloadProgress) -> Void
    ) async throws(SDKException) -> ModelInfo {
        let last = try await completedDownload(id) { onProgress($0) }
        guard let model = last.model else {
            throw SDKException(.internalError, "The download of '\(id)' ended without a result")
        }
        return model
    }

    /// Downloads `id`, awaiting `onProgress` for each report, and returns the last one, which
    /// is `.completed`; the download's error otherwise.
    func completedDownload(
        _ id: String,
        onProgress: (DownloadProgress) async -> Void
    ) async throws(SDKException) -> DownloadProgress {
        var last: DownloadProgress?
        for await progress in try downloadModel(id) {
            await onProgress(progress)
            last = progress
        }
        guard let last, last.stage == .completed else {
            throw last?.error ?? SDKException(.internalError, "The download of '\(id)' ended without a result")
        }
        return last
    }

    /// Cancels a running download and removes its partial files.
    ///
    /// - Returns: Whether a download of `id` was running.
    @discardableResult
    public func cancelDownload(_ id: String) throws(SDKException) -> Bool {
        try runtime().downloads.cancel(id)
    }

    /// Ids of the models downloading now.
    public func activeDownloads() throws(SDKException) -> [String] {
        try runtime().downloads.activeDownloads
    }

    /// Retries, timeouts and storage limits of later downloads.
    public func setDownloadConfiguration(_ configuration: DownloadConfiguration) throws(SDKException) {
        try configuration.validate()
        try runtime().downloads.configuration = configuration
    }

    /// The current download configuration.
    public func downloadConfiguration() throws(SDKException) -> DownloadConfiguration {
        try runtime().downloads.configuration
    }

    /// Adds a way to fetch model files, asked before the strategies registered earlier and
    /// before HTTP(S): models whose URLs it handles can then be registered and downloaded,
    /// with the same checksums, staging, extraction and clean-up as any download.
    ///
    /// ```swift
    /// try sdk.registerDownloadStrategy(AppModels(server: server, token: token))
    /// try sdk.registerModel(id: "assistant", name: "Assistant", url: URL(string: "myapp-models://assistant/model.gguf")!,
    ///                       framework: .llamaCpp, category: .llm)
    /// ```
    ///
    /// - Throws: `.invalidInput` for a strategy whose name is empty or already registered.
    public func registerDownloadStrategy(_ strategy: any DownloadStrategy) throws(SDKException) {
        try runtime().registry.strategies.register(strategy)
    }

    /// The names of the download strategies, in the order they are asked (HTTP(S) last).
    public var downloadStrategies: [String] {
        (try? runtime().registry.strategies.all.map(\.name)) ?? []
    }
}

extension RunAnywhere {
    // MARK: Registration
    /// Registers a model by reference (`hf.co/ORG/REPO/FILE.gguf` or `hf.co/ORG/REPO:QUANT`).
    ///
    /// Calls ``RunAnywhereSDK/registerModel(reference:id:name:category:framework:)`` on the shared instance.
    @discardableResult
    public static func registerModel(
        reference: String,
        id: String? = nil,
        name: String? = nil,
        category: ModelCategory = .llm,
        framework: InferenceFramework = InferenceFramework("llamacpp")
    ) async throws(SDKException) -> ModelInfo {
        try await sdk().registerModel(
            reference: reference,
            id: id,
            name: name,
            category: category,
            framework: framework
        )
    }

    /// Registers a model that is one file at a URL, to fetch later with ``downloadModel(_:)``.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(id:name:url:framework:category:format:fileName:sha256:sizeBytes:)`` on the shared instance.
    @discardableResult
    public static func registerModel(
        id: String,
        name: String,
        url: URL,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil,
        fileName: String? = nil,
        sha256: String? = nil,
        sizeBytes: Int64? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            id: id,
            name: name,
            url: url,
            framework: framework,
            category: category,
            format: format,
            fileName: fileName,
            sha256: sha256,
            sizeBytes: sizeBytes
        )
    }

    /// Registers a model shipped as an archive (`.zip`, `.tar.gz`, `.tar.bz2`, `.tar.xz`).
    ///
    /// Calls ``RunAnywhereSDK/registerModel(archive:id:name:framework:category:format:)`` on the shared instance.
    @discardableResult
    public static func registerModel(
        archive: ModelArchive,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            archive: archive,
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format
        )
    }

    /// Registers a model made of several files fetched side by side (a model and its
    /// tokens or config); `primaryFile` names the one engines open.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(multiFile:primaryFile:id:name:framework:category:format:)`` on the shared instance.
    @discardableResult
    public static func registerModel(
        multiFile files: [RemoteFile],
        primaryFile: String,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            multiFile: files,
            primaryFile: primaryFile,
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format
        )
    }

    // MARK: Downloading
    /// Downloads a registered model's files into the store; reports arrive on the stream.
    ///
    /// Calls ``RunAnywhereSDK/downloadModel(_:)`` on the shared instance.
    public static func downloadModel(_ id: String) throws(SDKException) -> AsyncStream<DownloadProgress> {
        try sdk().downloadModel(id)
    }

    /// Downloads a model and returns it once installed; `onProgress` sees every report.
    ///
    /// Calls ``RunAnywhereSDK/downloadModel(_:onProgress:)-(String,_)`` on the shared instance.
    @discardableResult
    public static func downloadModel(
        _ id: String,
        onProgress: @Sendable (DownloadProgress) -> Void
    ) async throws(SDKException) -> ModelInfo {
        try await sdk().downloadModel(id, onProgress: onProgress)
    }

    /// Cancels a running download and removes its partial files.
    ///
    /// Calls ``RunAnywhereSDK/cancelDownload(_:)`` on the shared instance.
    @discardableResult
    public static func cancelDownload(_ id: String) throws(SDKException) -> Bool {
        try sdk().cancelDownload(id)
    }

    /// Ids of the models downloading now.
    ///
    /// Calls ``RunAnywhereSDK/activeDownloads()`` on the shared instance.
    public static func activeDownloads() throws(SDKException) -> [String] {
        try sdk().activeDownloads()
    }

    /// Retries, timeouts and storage limits of later downloads.
    ///
    /// Calls ``RunAnywhereSDK/setDownloadConfiguration(_:)`` on the shared instance.
    public static func setDownloadConfiguration(_ configuration: DownloadConfiguration) throws(SDKException) {
        try sdk().setDownloadConfiguration(configuration)
    }

    /// Adds a way to fetch model files.
    ///
    /// Calls ``RunAnywhereSDK/registerDownloadStrategy(_:)`` on the shared instance.
    public static func registerDownloadStrategy(_ strategy: any DownloadStrategy) throws(SDKException) {
        try sdk().registerDownloadStrategy(strategy)
    }

    /// The current download configuration.
    ///
    /// Calls ``RunAnywhereSDK/downloadConfiguration()`` on the shared instance.
    public static func downloadConfiguration() throws(SDKException) -> DownloadConfiguration {
        try sdk().downloadConfiguration()
    }

    /// The native libraries downloads run on, with their versions, for diagnostics.
    public static var downloadLibraries: [String: String] {
        ["libcurl": HTTPTransfer.libraryVersion, "libarchive": ArchiveExtractor.libraryVersion]
    }
}

extension ModelInfo {
    /// The registry entry of a model to download from `artifact`, once the artifact is valid.
    package static func downloadable(
        artifact: ModelArtifact,
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat,
        visionProjectorFile: String? = nil,
        strategies: DownloadStrategies
    ) throws(SDKException) -> ModelInfo {
        try artifact.validate(canDownload: strategies.canHandle)
        let primary = artifact.remoteFiles.first { $0.fileName == artifact.primaryPath }
        return ModelInfo(
            id: id,
            name: name.isEmpty ? id : name,
            category: category,
            format: format,
            framework: framework,
            sizeBytes: artifact.knownDownloadSize,
            downloadURL: artifact.remoteFiles.first?.url,
            sha256: primary?.sha256,
            artifact: artifact,
            visionProjectorFile: visionProjectorFile
        )
    }
}
