#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The original SDK's registration, download and storage calls, each ending in this SDK's.

extension RunAnywhereSDK {
    /// The original SDK's registration by URL text: an http(s) URL as
    /// ``registerModel(id:name:url:framework:category:format:fileName:sha256:sizeBytes:)`` (named
    /// after its file without an `id`), anything else as a Hugging Face reference
    /// (``registerModel(reference:id:name:category:framework:)``); the category is labelled
    /// `modality`, and `memoryRequirement` is recorded as the model's size. The original's
    /// `supportsThinking` and `supportsLora` are taken so its calls compile, and have no field
    /// here: thinking is read from the chat template, adapters are checked when applied.
    @discardableResult
    public func registerModel(
        id: String? = nil,
        name: String,
        url: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        memoryRequirement: Int64? = nil,
        supportsThinking: Bool = false,
        supportsLora: Bool = false
    ) async throws(SDKException) -> ModelInfo {
        var model: ModelInfo
        if let address = URL(string: url), address.scheme == "https" || address.scheme == "http" {
            // A URL names the model after its file, as the original SDK does without an id.
            let fileName = address.deletingPathExtension().lastPathComponent
            model = try registerModel(
                id: id ?? fileName,
                name: name,
                url: address,
                framework: framework,
                category: modality
            )
        } else {
            model = try await registerModel(
                reference: url,
                id: id,
                name: name,
                category: modality,
                framework: framework
            )
        }
        if let memoryRequirement {
            model.sizeBytes = memoryRequirement
            try registerModel(model, replace: true)
        }
        return model
    }

    /// The original SDK's registration of an archive by URL text: the file engines open is
    /// found once it is unpacked, where `structure` says (``ArchiveStructure/primaryFile(in:)``),
    /// and the format from that file's suffix. The id defaults to the archive's name without
    /// its suffix; `archiveType` to what the suffix says; `memoryRequirement` is recorded as
    /// the model's size. The original's `supportsThinking` and `supportsLora` are taken so its
    /// calls compile, and have no field here: thinking is read from the chat template,
    /// adapters are checked when applied.
    ///
    /// - Throws: `.invalidInput` for a URL that is not http(s) or an archive of unknown type,
    ///   `.invalidModelId`, `.modelAlreadyExists`.
    @discardableResult
    public func registerModel(
        archive url: String,
        structure: ArchiveStructure,
        id: String? = nil,
        name: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        archive archiveType: ArchiveType? = nil,
        memoryRequirement: Int64? = nil,
        supportsThinking: Bool = false,
        supportsLora: Bool = false
    ) async throws(SDKException) -> ModelInfo {
        guard let address = URL(string: url), address.scheme == "https" || address.scheme == "http" else {
            throw SDKException(.invalidInput, "'\(url)' is not an http(s) URL")
        }
        let archive = try ModelArchive(url: address, type: archiveType, primaryFile: "", structure: structure)
        let stem = archive.type.stem(of: address.lastPathComponent)
        var model = try registerModel(
            archive: archive,
            id: id ?? Self.modelId(forFile: stem),
            name: name,
            framework: framework,
            category: modality,
            format: .unknown
        )
        if let memoryRequirement {
            model.sizeBytes = memoryRequirement
            try registerModel(model, replace: true)
        }
        return model
    }

    /// ``registerModel(multiFile:primaryFile:id:name:framework:category:format:)`` in the
    /// original SDK's shape: the first file is the one the engine opens, the category is
    /// labelled `modality`, and a context length and size may be given.
    ///
    /// - Throws: `.invalidInput` when `files` is empty.
    @discardableResult
    public func registerModel(
        multiFile files: [RemoteFile],
        id: String,
        name: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        memoryRequirement: Int64? = nil,
        contextLength: Int? = nil
    ) throws(SDKException) -> ModelInfo {
        guard let primary = files.first else {
            throw SDKException(.invalidInput, "A multi-file model needs at least one file")
        }
        var model = try registerModel(
            multiFile: files,
            primaryFile: primary.fileName,
            id: id,
            name: name,
            framework: framework,
            category: modality
        )
        if memoryRequirement != nil || contextLength != nil {
            model.sizeBytes = memoryRequirement ?? model.sizeBytes
            model.contextLength = contextLength ?? model.contextLength
            try registerModel(model, replace: true)
        }
        return model
    }

    /// The original SDK's download: ``downloadModel(_:)`` of `model`'s id, `onProgress`
    /// awaited for each report; returns the last report (stage `.completed`).
    ///
    /// - Throws: the download's error when it fails.
    @discardableResult
    public func downloadModel(
        _ model: ModelInfo,
        onProgress: (@Sendable (DownloadProgress) async -> Void)? = nil
    ) async throws(SDKException) -> DownloadProgress {
        try await completedDownload(model.id) { await onProgress?($0) }
    }

    /// The original SDK's storage report: ``storageInfo()`` in a result that holds its error
    /// instead of throwing, with the parts the request leaves out emptied.
    public func getStorageInfo(_ request: StorageInfoRequest = StorageInfoRequest()) async -> StorageInfoResult {
        do throws(SDKException) {
            return StorageInfoResult(info: request.filter(try storageInfo()), error: nil)
        } catch {
            return StorageInfoResult(info: .empty, error: error)
        }
    }

    /// The original SDK's deletion: ``deleteModel(_:)`` of each requested model (files only; the
    /// registry entries stay), or with `dryRun` only what it would free. Never throws: the
    /// failures are in the result.
    public func deleteStorage(_ request: StorageDeleteRequest) async -> StorageDeleteResult {
        var result = StorageDeleteResult()
        let stored = (try? storageInfo().models) ?? []
        for id in request.modelIds {
            let bytes = stored.first { $0.id == id }?.sizeBytes ?? 0
            if request.dryRun {
                result.deletedModelIds.append(id)
                result.freedBytes += bytes
                continue
            }
            do throws(SDKException) {
                try await deleteModel(id)
                result.deletedModelIds.append(id)
                result.freedBytes += bytes
            } catch {
                result.errors[id] = error
            }
        }
        return result
    }
}

/// The original SDK's storage request: which parts of the report to fill in. As in the
/// original, a request that sets none of them asks for the whole report.
public struct StorageInfoRequest: Sendable, Equatable, Codable {
    /// The volume's total and free bytes.
    public var includeDevice: Bool
    /// The SDK's own working files: ``StorageInfo/tempBytes``.
    public var includeApp: Bool
    /// The models: ``StorageInfo/models`` and ``StorageInfo/modelsBytes``.
    public var includeModels: Bool
    /// ``StorageInfo/cacheBytes``.
    public var includeCache: Bool

    /// A request for the parts set; none set asks for the whole report.
    public init(
        includeDevice: Bool = false,
        includeApp: Bool = false,
        includeModels: Bool = false,
        includeCache: Bool = false
    ) {
        self.includeDevice = includeDevice
        self.includeApp = includeApp
        self.includeModels = includeModels
        self.includeCache = includeCache
    }

    /// Decodes a request; a missing flag is not set (JSON from before the flags asks for all).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            includeDevice: try container.decodeIfPresent(Bool.self, forKey: .includeDevice) ?? false,
            includeApp: try container.decodeIfPresent(Bool.self, forKey: .includeApp) ?? false,
            includeModels: try container.decodeIfPresent(Bool.self, forKey: .includeModels) ?? false,
            includeCache: try container.decodeIfPresent(Bool.self, forKey: .includeCache) ?? false
        )
    }

    /// `info` with the parts this request leaves out emptied.
    func filter(_ info: StorageInfo) -> StorageInfo {
        guard includeDevice || includeApp || includeModels || includeCache else { return info }
        var info = info
        if !includeDevice { info.device = StorageInfo.empty.device }
        if !includeApp { info.tempBytes = 0 }
        if !includeModels {
            info.models = []
            info.modelsBytes = 0
        }
        if !includeCache { info.cacheBytes = 0 }
        return info
    }
}

/// The storage report, or why it could not be made.
public struct StorageInfoResult: Sendable, Equatable {
    /// The report; ``StorageInfo/empty`` on failure, as the original SDK's.
    public var info: StorageInfo
    /// The failure; `nil` on success.
    public var error: SDKException?

    /// Creates a result.
    public init(info: StorageInfo, error: SDKException?) {
        self.info = info
        self.error = error
    }

    /// Whether the report was made.
    public var success: Bool { error == nil }
    /// Why it was not made; empty on success.
    public var errorMessage: String { error?.message ?? "" }
    /// Always empty: what might have been a warning is in the report or its error.
    public var warnings: [String] { [] }
}

/// Models whose files to delete (the original SDK's request).
public struct StorageDeleteRequest: Sendable, Equatable, Codable {
    /// The models.
    public var modelIds: [String]
    /// Whether to only report what would be freed.
    public var dryRun: Bool

    /// A request for `modelIds`.
    public init(modelIds: [String], dryRun: Bool = false) {
        self.modelIds = modelIds
        self.dryRun = dryRun
    }
}

/// What a deletion freed.
public struct StorageDeleteResult: Sendable, Equatable {
    /// The models whose files went (or would go, in a dry run).
    public var deletedModelIds: [String] = []
    /// Bytes freed (or that would be).
    public var freedBytes: Int64 = 0
    /// The models that could not be deleted, and why.
    public var errors: [String: SDKException] = [:]
    /// Whether every requested model was deleted.
    public var success: Bool { errors.isEmpty }
}

extension RunAnywhere {
    /// Registers a model by URL text or Hugging Face reference (the original SDK's form).
    ///
    /// Calls ``RunAnywhereSDK/registerModel(id:name:url:framework:modality:memoryRequirement:supportsThinking:supportsLora:)``.
    @discardableResult
    public static func registerModel(
        id: String? = nil,
        name: String,
        url: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        memoryRequirement: Int64? = nil,
        supportsThinking: Bool = false,
        supportsLora: Bool = false
    ) async throws(SDKException) -> ModelInfo {
        try await sdk().registerModel(
            id: id,
            name: name,
            url: url,
            framework: framework,
            modality: modality,
            memoryRequirement: memoryRequirement
        )
    }

    /// Registers an archive whose primary file is found where `structure` says, once unpacked.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(archive:structure:id:name:framework:modality:archive:memoryRequirement:supportsThinking:supportsLora:)``.
    @discardableResult
    public static func registerModel(
        archive url: String,
        structure: ArchiveStructure,
        id: String? = nil,
        name: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        archive archiveType: ArchiveType? = nil,
        memoryRequirement: Int64? = nil,
        supportsThinking: Bool = false,
        supportsLora: Bool = false
    ) async throws(SDKException) -> ModelInfo {
        try await sdk().registerModel(
            archive: url,
            structure: structure,
            id: id,
            name: name,
            framework: framework,
            modality: modality,
            archive: archiveType,
            memoryRequirement: memoryRequirement
        )
    }

    /// Registers a model of several files, the first of which the engine opens.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(multiFile:id:name:framework:modality:memoryRequirement:contextLength:)``.
    @discardableResult
    public static func registerModel(
        multiFile files: [RemoteFile],
        id: String,
        name: String,
        framework: InferenceFramework,
        modality: ModelCategory = .llm,
        memoryRequirement: Int64? = nil,
        contextLength: Int? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            multiFile: files,
            id: id,
            name: name,
            framework: framework,
            modality: modality,
            memoryRequirement: memoryRequirement,
            contextLength: contextLength
        )
    }

    /// Downloads `model`, awaiting `onProgress` for each report.
    ///
    /// Calls ``RunAnywhereSDK/downloadModel(_:onProgress:)-(ModelInfo,_)`` on the shared instance.
    @discardableResult
    public static func downloadModel(
        _ model: ModelInfo,
        onProgress: (@Sendable (DownloadProgress) async -> Void)? = nil
    ) async throws(SDKException) -> DownloadProgress {
        try await sdk().downloadModel(model, onProgress: onProgress)
    }

    /// The shared instance's storage report, or the error in the result.
    public static func getStorageInfo(_ request: StorageInfoRequest = StorageInfoRequest()) async -> StorageInfoResult {
        guard let shared else {
            return StorageInfoResult(info: .empty, error: SDKException(.notInitialized, "The SDK is not initialized"))
        }
        return await shared.getStorageInfo(request)
    }

    /// Deletes the requested models' files on the shared instance.
    public static func deleteStorage(_ request: StorageDeleteRequest) async -> StorageDeleteResult {
        guard let shared else {
            var result = StorageDeleteResult()
            for id in request.modelIds {
                result.errors[id] = SDKException(.notInitialized, "The SDK is not initialized")
            }
            return result
        }
        return await shared.deleteStorage(request)
    }
}
