#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Space on the device, and what the SDK's models, cache and temporary files take.
    ///
    /// ```swift
    /// let info = try RunAnywhere.storageInfo()
    /// print("free:", info.device.freeBytes, "models:", info.modelsBytes)
    /// for model in info.models { print(model.id, model.sizeBytes, model.lastUsedAt ?? "never") }
    /// ```
    public func storageInfo() throws(SDKException) -> StorageInfo {
        let runtime = try runtime()
        let paths = runtime.paths
        let stored = runtime.registry.list().compactMap { model -> StoredModel? in
            guard let path = model.localPath else { return nil }
            let storeDir = paths.modelDirectory(framework: model.framework, id: model.id)
            // A file below the model's store folder, or the folder itself: the folder's size counts.
            let inStore = FileSystem.isWithin(path, folder: storeDir)
            return StoredModel(
                id: model.id,
                name: model.name,
                category: model.category,
                framework: model.framework,
                path: path,
                sizeBytes: FileSystem.allocatedSize(of: inStore ? storeDir : path),
                downloadedAt: model.downloadedAt,
                lastUsedAt: model.lastUsedAt
            )
        }
        return StorageInfo(
            device: FileSystem.volumeSpace(at: paths.home),
            home: paths.home,
            modelsBytes: stored.reduce(0) { $0 + $1.sizeBytes },
            cacheBytes: FileSystem.allocatedSize(of: paths.cacheDirectory),
            tempBytes: FileSystem.allocatedSize(of: paths.tempDirectory),
            models: stored.sorted { ($0.sizeBytes, $1.id) > ($1.sizeBytes, $0.id) }
        )
    }

    /// Deletes a model's files to free space.
    ///
    /// A model registered with a URL stays registered, marked not downloaded, so
    /// ``downloadModel(_:)`` can fetch it again. A model with no download source has
    /// nothing to come back from and is unregistered, as ``removeModel(_:)`` does. A
    /// running download of it is cancelled, and a loaded model is unloaded first.
    ///
    /// - Throws: `.modelNotFound`, or `.fileSystemError` (the registry is then unchanged).
    public func deleteModel(_ id: String) async throws(SDKException) {
        let runtime = try runtime()
        let model = try runtime.registry.get(id)
        runtime.downloads.cancel(id)
        await runtime.unloadEverywhere(id)
        try runtime.registry.remove(id, keepingEntry: model.isDownloadable)
        events.publish(model.isDownloadable ? .modelFilesDeleted(modelId: id) : .modelRemoved(modelId: id))
    }

    /// Empties the SDK's `cache/` folder; returns the bytes freed.
    @discardableResult
    public func clearCache() throws(SDKException) -> Int64 {
        let runtime = try runtime()
        return FileSystem.removeContents(of: runtime.paths.cacheDirectory)
    }

    /// Deletes temporary files, partial downloads included, except those of downloads
    /// running now (here or in another process); returns the bytes freed.
    @discardableResult
    public func cleanTempFiles() throws(SDKException) -> Int64 {
        try runtime().cleanTempFiles()
    }
}

extension RunAnywhere {
    /// Space on the device, and what the SDK's models, cache and temporary files take.
    ///
    /// Calls ``RunAnywhereSDK/storageInfo()`` on the shared instance.
    public static func storageInfo() throws(SDKException) -> StorageInfo {
        try sdk().storageInfo()
    }

    /// Deletes a model's files to free space.
    ///
    /// Calls ``RunAnywhereSDK/deleteModel(_:)`` on the shared instance.
    public static func deleteModel(_ id: String) async throws(SDKException) {
        try await sdk().deleteModel(id)
    }

    /// Empties the SDK's `cache/` folder; returns the bytes freed.
    ///
    /// Calls ``RunAnywhereSDK/clearCache()`` on the shared instance.
    @discardableResult
    public static func clearCache() throws(SDKException) -> Int64 {
        try sdk().clearCache()
    }

    /// Deletes temporary files, partial downloads included, except those of downloads
    /// running now (here or in another process); returns the bytes freed.
    ///
    /// Calls ``RunAnywhereSDK/cleanTempFiles()`` on the shared instance.
    @discardableResult
    public static func cleanTempFiles() throws(SDKException) -> Int64 {
        try sdk().cleanTempFiles()
    }
}
