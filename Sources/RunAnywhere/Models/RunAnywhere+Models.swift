#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Every registered model, sorted by id.
    public func availableModels() throws(SDKException) -> [ModelInfo] {
        try runtime().registry.list()
    }

    /// Registered models of a category and/or framework.
    public func models(
        category: ModelCategory? = nil,
        framework: InferenceFramework? = nil
    ) throws(SDKException) -> [ModelInfo] {
        try runtime().registry.models(category: category, framework: framework)
    }

    /// One registered model.
    ///
    /// - Throws: `.modelNotFound` when no model has that id.
    public func model(_ id: String) throws(SDKException) -> ModelInfo {
        try runtime().registry.get(id)
    }

    /// Registers a model entry, e.g. one whose file already lives elsewhere on disk
    /// (`localPath`) or one to download later (`downloadURL`).
    ///
    /// - Throws: `.invalidModelId`, `.modelAlreadyExists` (unless `replace`), or
    ///   `.modelFileNotFound` when `localPath` is set but unreadable.
    public func registerModel(_ model: ModelInfo, replace: Bool = false) throws(SDKException) {
        try runtime().registry.register(model, replace: replace)
        events.publish(.modelRegistered(modelId: model.id))
    }

    /// Copies (or moves) a local model file into the SDK's store and registers it.
    ///
    /// `file` may also be a folder, for models made of several files (a Piper voice and
    /// its `tokens.txt`); `primaryFile` then names the file engines open, unless the folder
    /// holds exactly one file with a model extension.
    ///
    /// Before anything is written, the primary file goes to the model file inspector of the
    /// backend that applies to it (the llama.cpp module checks GGUF files): a file its engine
    /// could not load gives `.invalidModelFormat`, a truncated one `.modelCorrupted`. On any
    /// failure nothing is left behind and a moved file is put back.
    ///
    /// ```swift
    /// let model = try RunAnywhere.importModel(from: URL(fileURLWithPath: "SmolLM2.gguf"),
    ///                                         id: "smollm2-135m-instruct", category: .llm,
    ///                                         framework: .llamaCpp)
    /// ```
    @discardableResult
    public func importModel(
        from file: URL,
        id: String,
        name: String? = nil,
        category: ModelCategory,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy,
        primaryFile: String? = nil
    ) throws(SDKException) -> ModelInfo {
        let model = try runtime().registry.importModel(
            from: file,
            id: id,
            name: name,
            category: category,
            framework: framework,
            mode: mode,
            primaryFile: primaryFile
        )
        events.publish(.modelRegistered(modelId: id))
        return model
    }

    /// Unregisters a model and deletes its files from the store (files registered from
    /// elsewhere are left alone). A loaded model is unloaded first.
    public func removeModel(_ id: String) async throws(SDKException) {
        let runtime = try runtime()
        let model = try runtime.registry.get(id)
        await runtime.unloadEverywhere(id)
        try runtime.registry.remove(id)
        // The API key registerRemoteModel stored under its default name goes with the model.
        if let secret = model.remote?.apiKeySecret, secret == Self.remoteAPIKeySecret(for: id) {
            _ = try? secureStore().delete(secret)
        }
        events.publish(.modelRemoved(modelId: id))
    }
}

extension RunAnywhere {
    /// Every registered model, sorted by id.
    ///
    /// Calls ``RunAnywhereSDK/availableModels()`` on the shared instance.
    public static func availableModels() throws(SDKException) -> [ModelInfo] {
        try sdk().availableModels()
    }

    /// Registered models of a category and/or framework.
    ///
    /// Calls ``RunAnywhereSDK/models(category:framework:)`` on the shared instance.
    public static func models(
        category: ModelCategory? = nil,
        framework: InferenceFramework? = nil
    ) throws(SDKException) -> [ModelInfo] {
        try sdk().models(category: category, framework: framework)
    }

    /// One registered model.
    ///
    /// Calls ``RunAnywhereSDK/model(_:)`` on the shared instance.
    public static func model(_ id: String) throws(SDKException) -> ModelInfo {
        try sdk().model(id)
    }

    /// Registers a model entry, e.g. one whose file already lives elsewhere on disk
    /// (`localPath`) or one to download later (`downloadURL`).
    ///
    /// Calls ``RunAnywhereSDK/registerModel(_:replace:)`` on the shared instance.
    public static func registerModel(_ model: ModelInfo, replace: Bool = false) throws(SDKException) {
        try sdk().registerModel(model, replace: replace)
    }

    /// Copies (or moves) a local model file into the SDK's store and registers it.
    ///
    /// Calls ``RunAnywhereSDK/importModel(from:id:name:category:framework:mode:primaryFile:)`` on the shared instance.
    @discardableResult
    public static func importModel(
        from file: URL,
        id: String,
        name: String? = nil,
        category: ModelCategory,
        framework: InferenceFramework,
        mode: ModelImportMode = .copy,
        primaryFile: String? = nil
    ) throws(SDKException) -> ModelInfo {
        try sdk().importModel(
            from: file,
            id: id,
            name: name,
            category: category,
            framework: framework,
            mode: mode,
            primaryFile: primaryFile
        )
    }

    /// Unregisters a model and deletes its files from the store (files registered from
    /// elsewhere are left alone). A loaded model is unloaded first.
    ///
    /// Calls ``RunAnywhereSDK/removeModel(_:)`` on the shared instance.
    public static func removeModel(_ id: String) async throws(SDKException) {
        try await sdk().removeModel(id)
    }
}
