#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// ``registerModel(id:name:url:framework:category:format:fileName:sha256:sizeBytes:)``
    /// under the original SDK's label for the category, `modality`.
    @discardableResult
    public func registerModel(
        id: String,
        name: String,
        url: URL,
        framework: InferenceFramework,
        modality: ModelCategory,
        format: ModelFormat? = nil,
        sha256: String? = nil,
        sizeBytes: Int64? = nil
    ) throws(SDKException) -> ModelInfo {
        try registerModel(
            id: id,
            name: name,
            url: url,
            framework: framework,
            category: modality,
            format: format,
            sha256: sha256,
            sizeBytes: sizeBytes
        )
    }

    /// ``registerModel(multiFile:primaryFile:id:name:framework:category:format:)`` in the
    /// original SDK's shape: the first file is the one the engine opens.
    ///
    /// - Throws: `.invalidInput` when `files` is empty.
    @discardableResult
    public func registerModel(
        multiFile files: [RemoteFile],
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        guard let primary = files.first else {
            throw SDKException(.invalidInput, "A multi-file model needs at least one file")
        }
        return try registerModel(
            multiFile: files,
            primaryFile: primary.fileName,
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format
        )
    }

    /// The original SDK's name for ``deleteModel(_:)``: removes the model's files and keeps
    /// its registry entry.
    public func deleteStorage(_ modelId: String) async throws(SDKException) {
        try await deleteModel(modelId)
    }
}

extension RunAnywhere {
    /// Registers a downloadable model under the original SDK's label for the category.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(id:name:url:framework:modality:format:sha256:sizeBytes:)``
    /// on the shared instance.
    @discardableResult
    public static func registerModel(
        id: String,
        name: String,
        url: URL,
        framework: InferenceFramework,
        modality: ModelCategory,
        format: ModelFormat? = nil,
        sha256: String? = nil,
        sizeBytes: Int64? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            id: id,
            name: name,
            url: url,
            framework: framework,
            modality: modality,
            format: format,
            sha256: sha256,
            sizeBytes: sizeBytes
        )
    }

    /// Registers a model of several files, the first of which the engine opens.
    ///
    /// Calls ``RunAnywhereSDK/registerModel(multiFile:id:name:framework:category:format:)`` on
    /// the shared instance.
    @discardableResult
    public static func registerModel(
        multiFile files: [RemoteFile],
        id: String,
        name: String,
        framework: InferenceFramework,
        category: ModelCategory,
        format: ModelFormat? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().registerModel(
            multiFile: files,
            id: id,
            name: name,
            framework: framework,
            category: category,
            format: format
        )
    }

    /// Removes a model's files and keeps its registry entry.
    ///
    /// Calls ``RunAnywhereSDK/deleteStorage(_:)`` on the shared instance.
    public static func deleteStorage(_ modelId: String) async throws(SDKException) {
        try await sdk().deleteStorage(modelId)
    }
}
