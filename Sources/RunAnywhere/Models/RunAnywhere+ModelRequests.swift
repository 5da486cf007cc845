// The original SDK's request-shaped model calls. Each ends in the capability's own call
// (`loadModel(_:contextLength:…)`, `loadSTTModel(_:)`, `models(category:framework:)`, …) and
// returns its error in the result instead of throwing, as the original does.

extension RunAnywhereSDK {
    /// Loads a registered model into the capability of its category (the original SDK's
    /// request-shaped call): `.llm` as ``loadModel(_:contextLength:threads:slots:chatTemplate:)``,
    /// `.speechRecognition` as ``loadSTTModel(_:)``, and so on. Never throws: a failure is the
    /// result's ``ModelLoadResult/error``.
    public func loadModel(_ request: ModelLoadRequest) async -> ModelLoadResult {
        do throws(SDKException) {
            let category: ModelCategory
            if let given = request.category {
                category = given
            } else {
                category = try model(request.modelId).category
            }
            switch category {
            case .llm: try await loadModel(request.modelId)
            case .embedding: try await loadEmbeddingModel(request.modelId)
            case .speechRecognition: try await loadSTTModel(request.modelId)
            case .speechSynthesis: try await loadTTSModel(request.modelId)
            case .voiceActivityDetection: try await loadVADModel(request.modelId)
            case .vision: try await loadVLMModel(request.modelId)
            case .speakerEmbedding: try await loadDiarizationModel(request.modelId)
            case .loraAdapter:
                throw SDKException(
                    .invalidInput,
                    "'\(request.modelId)' is a LoRA adapter: it is applied to a language model, not loaded",
                    recovery: "Use RunAnywhere.lora.apply(_:scale:)"
                )
            }
            return ModelLoadResult(modelId: request.modelId, model: try model(request.modelId), error: nil)
        } catch {
            return ModelLoadResult(modelId: request.modelId, model: nil, error: error)
        }
    }

    /// Unloads the model of a capability (the original SDK's request-shaped call); unloading a
    /// capability with no model loaded succeeds. Never throws.
    public func unloadModel(_ request: ModelUnloadRequest) async -> ModelUnloadResult {
        do throws(SDKException) {
            switch request.category {
            case .llm: try await unloadModel()
            case .embedding: try await unloadEmbeddingModel()
            case .speechRecognition: try await unloadSTTModel()
            case .speechSynthesis: try await unloadTTSModel()
            case .voiceActivityDetection: try await unloadVADModel()
            case .vision: try await unloadVLMModel()
            case .speakerEmbedding: try await unloadDiarizationModel()
            case .loraAdapter: try await lora.clear()
            }
            return ModelUnloadResult(error: nil)
        } catch {
            return ModelUnloadResult(error: error)
        }
    }

    /// Registered models that match the request, sorted by id (the original SDK's name for
    /// ``models(category:framework:)``). Never throws.
    public func listModels(_ request: ModelListRequest = ModelListRequest()) async -> ModelListResult {
        do throws(SDKException) {
            let found = try models(category: request.category, framework: request.framework)
            return ModelListResult(models: request.downloadedOnly ? found.filter(\.isDownloaded) : found)
        } catch {
            return ModelListResult(models: [], error: error)
        }
    }

    /// ``listModels(_:)`` under the original SDK's name for a filtered listing.
    public func queryModels(_ query: ModelQuery) async -> ModelListResult {
        await listModels(query)
    }

    /// The registered models whose files are on this device.
    public func downloadedModels() async -> ModelListResult {
        await listModels(ModelListRequest(downloadedOnly: true))
    }

    /// One registered model (the original SDK's name for ``model(_:)``). Never throws: an
    /// unknown id is a result without a model and with `model_not_found`.
    public func getModel(_ request: ModelGetRequest) async -> ModelGetResult {
        do throws(SDKException) {
            return ModelGetResult(model: try model(request.modelId))
        } catch {
            return ModelGetResult(model: nil, error: error)
        }
    }
}

extension RunAnywhere {
    /// Calls ``RunAnywhereSDK/loadModel(_:)-(ModelLoadRequest)`` on the shared instance.
    public static func loadModel(_ request: ModelLoadRequest) async -> ModelLoadResult {
        do throws(SDKException) {
            return try await sdk().loadModel(request)
        } catch {
            return ModelLoadResult(modelId: request.modelId, model: nil, error: error)
        }
    }

    /// Calls ``RunAnywhereSDK/unloadModel(_:)`` on the shared instance.
    public static func unloadModel(_ request: ModelUnloadRequest) async -> ModelUnloadResult {
        do throws(SDKException) {
            return try await sdk().unloadModel(request)
        } catch {
            return ModelUnloadResult(error: error)
        }
    }

    /// Calls ``RunAnywhereSDK/listModels(_:)`` on the shared instance.
    public static func listModels(_ request: ModelListRequest = ModelListRequest()) async -> ModelListResult {
        do throws(SDKException) {
            return try await sdk().listModels(request)
        } catch {
            return ModelListResult(models: [], error: error)
        }
    }

    /// Calls ``RunAnywhereSDK/queryModels(_:)`` on the shared instance.
    public static func queryModels(_ query: ModelQuery) async -> ModelListResult {
        await listModels(query)
    }

    /// Calls ``RunAnywhereSDK/downloadedModels()`` on the shared instance.
    public static func downloadedModels() async -> ModelListResult {
        await listModels(ModelListRequest(downloadedOnly: true))
    }

    /// Calls ``RunAnywhereSDK/getModel(_:)`` on the shared instance.
    public static func getModel(_ request: ModelGetRequest) async -> ModelGetResult {
        do throws(SDKException) {
            return try await sdk().getModel(request)
        } catch {
            return ModelGetResult(model: nil, error: error)
        }
    }
}
