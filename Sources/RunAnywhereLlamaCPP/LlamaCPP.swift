internal import CLlama
@_spi(Backend) import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The llama.cpp backend: GGUF language, vision-language and embedding models.
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereLlamaCPP
///
/// LlamaCPP.register()
/// try RunAnywhere.initialize()
/// ```
///
/// An SDK instance of your own takes a ``LlamaCPPModule`` instead:
/// `RunAnywhereSDK(home: home, modules: [LlamaCPPModule()])`.
public enum LlamaCPP {
    /// Default priority of the llama.cpp LLM provider.
    public static let defaultPriority = 100

    /// Adds the llama.cpp module to the shared SDK (`RunAnywhere`).
    public static func register(priority: Int = defaultPriority) {
        RunAnywhere.register(LlamaCPPModule(priority: priority))
    }

    /// The ggml version llama.cpp was built with, or `unavailable` when its library cannot be opened.
    public static var ggmlVersion: String {
        (try? ensureBackend()).map { String(nullableCString: $0.ggml_version()) } ?? "unavailable"
    }

    /// llama.cpp's description of the CPU features it uses (empty when its library cannot be opened).
    public static var systemInfo: String {
        (try? ensureBackend()).map { String(nullableCString: $0.llama_print_system_info()) } ?? ""
    }

    /// Whether this llama.cpp build can offload layers to a GPU it found (a CUDA, Vulkan,
    /// Metal… build on a device with one); the CPU builds the bootstrap makes cannot.
    public static var supportsGPUOffload: Bool {
        (try? ensureBackend())?.llama_supports_gpu_offload() ?? false
    }

    /// Whether a load under `preference` offloads to the GPU; `.gpu` without GPU support is
    /// `.acceleratorUnavailable`.
    static func usesGPU(_ preference: AcceleratorPreference) throws(SDKException) -> Bool {
        try preference.usesGPU(engine: "llama.cpp", engineHasGPU: ensureBackend().llama_supports_gpu_offload())
    }

    private static let backendReady = Mutex(false)

    /// The last error line llama.cpp or libmtmd logged: the only place some of their refusals
    /// (a projector that does not fit the model) say why.
    static let lastError = Mutex<String?>(nil)

    /// Opens llama.cpp's libraries and initializes it once per process, its log (and libmtmd's)
    /// routed into the SDK logger; every service is made after this.
    ///
    /// - Throws: `.backendError` when the libraries cannot be opened.
    @discardableResult
    static func ensureBackend() throws(SDKException) -> NativeFunctions<rac_llama_functions> {
        let functions = try LlamaLibrary.load()
        backendReady.withLock { ready in
            guard !ready else { return }
            functions.llama_log_set(llamaLogCallback, nil)
            functions.mtmd_helper_log_set(llamaLogCallback, nil)
            functions.llama_backend_init()
            ready = true
        }
        return functions
    }
}

extension InferenceFramework {
    /// Models run by llama.cpp (GGUF files); their store folder is `models/llamacpp/`.
    public static let llamaCpp = InferenceFramework("llamacpp")
}

/// The `BackendModule` that offers llama.cpp services.
public struct LlamaCPPModule: BackendModule {
    /// The module's name, `llamacpp`.
    public let name = "llamacpp"
    /// Priority of the llama.cpp LLM provider; the highest wins when several can run a model.
    public let priority: Int

    /// Creates the module.
    public init(priority: Int = LlamaCPP.defaultPriority) {
        self.priority = priority
    }

    /// Offers llama.cpp for GGUF language, vision-language and embedding models of framework
    /// `llamaCpp`, and the GGUF
    /// inspector that checks such files when they are imported or downloaded.
    public func register(with registry: ServiceRegistry) {
        // The backend starts on the first model load (`usesGPU` starts it), not here.
        // llama.cpp refuses a bad header only deep inside its loader; the inspector checks it at import.
        registry.registerModelInspector(GGUFFile.inspector(for: .llamaCpp))
        registry.registerLLM(
            name: "llama.cpp",
            priority: priority,
            canHandle: { model in
                model.category == .llm && model.format == .gguf && model.framework == .llamaCpp
            },
            factory: { model, configuration in
                try await LlamaCPPLLMService.load(
                    model: model,
                    configuration: configuration,
                    useGPU: LlamaCPP.usesGPU(registry.acceleratorPreference)
                )
            }
        )
        registry.registerVLM(
            name: "llama.cpp",
            priority: priority,
            canHandle: { model in
                model.category == .vision && model.format == .gguf && model.framework == .llamaCpp
            },
            factory: { model, configuration in
                try await LlamaCPPVLMService.load(
                    model: model,
                    configuration: configuration,
                    useGPU: LlamaCPP.usesGPU(registry.acceleratorPreference)
                )
            }
        )
        registry.registerEmbeddings(
            name: "llama.cpp",
            priority: priority,
            canHandle: { model in
                model.category == .embedding && model.format == .gguf && model.framework == .llamaCpp
            },
            factory: { model, configuration in
                try await LlamaCPPEmbeddingsService.load(
                    model: model,
                    configuration: configuration,
                    useGPU: LlamaCPP.usesGPU(registry.acceleratorPreference)
                )
            }
        )
    }

    /// Describes llama.cpp for diagnostics: its ggml version and CPU features.
    public func engineInfo() -> EngineInfo {
        let functions: NativeFunctions<rac_llama_functions>
        do throws(SDKException) {
            functions = try LlamaCPP.ensureBackend()
        } catch {
            return EngineInfo(name: "llama.cpp", version: nil, available: false, details: ["error": error.message])
        }
        return EngineInfo(
            name: "llama.cpp",
            version: "ggml \(String(nullableCString: functions.ggml_version()))",
            available: true,
            details: [
                "system_info": String(nullableCString: functions.llama_print_system_info()).trimmedSpaces(),
                "mmap": functions.llama_supports_mmap() ? "yes" : "no",
            ],
            gpuOffload: functions.llama_supports_gpu_offload()
        )
    }
}

/// The backend's log: llama.cpp's own lines and the backend's warnings.
let llamaLogger = SDKLogger(category: "llama.cpp")

/// llama.cpp logs a great deal while loading; only its errors are worth more than debug, and
/// its progress lines are logged only when the app asks for the engines' logs.
private let llamaLogCallback: @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void =
    { level, text, _ in
        let isError = level == GGML_LOG_LEVEL_ERROR
        let logged: LogLevel = isError ? .warning : .debug
        let progress = !isError && level != GGML_LOG_LEVEL_WARN
        // An error is kept even when it is not logged: it explains the failure llama.cpp returns next.
        guard let line = SDKLogger.engineLine(text, at: logged, progress: progress, keep: isError) else { return }
        if isError { LlamaCPP.lastError.withLock { $0 = line } }
        llamaLogger.log(logged, line)
    }
