internal import CWhisper
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

/// The whisper.cpp backend: speech recognition with Whisper models in ggml format.
///
/// ```swift
/// import RunAnywhere
/// import RunAnywhereWhisperCPP
///
/// WhisperCPP.register()
/// try RunAnywhere.initialize()
/// try await RunAnywhere.loadSTTModel("whisper-tiny-en")
/// ```
///
/// An SDK instance of your own takes a ``WhisperCPPModule`` instead:
/// `RunAnywhereSDK(home: home, modules: [WhisperCPPModule()])`.
public enum WhisperCPP {
    /// Default priority of the whisper.cpp STT provider.
    public static let defaultPriority = 100

    /// Adds the whisper.cpp module to the shared SDK (`RunAnywhere`).
    public static func register(priority: Int = defaultPriority) {
        RunAnywhere.register(WhisperCPPModule(priority: priority))
    }

    /// whisper.cpp's version, or `nil` when the library cannot be opened.
    public static var version: String? {
        (try? WhisperLibrary.load()).map { String(nullableCString: $0.whisper_version()) }
    }

    /// whisper.cpp's description of the CPU features it uses.
    public static var systemInfo: String {
        (try? WhisperLibrary.load()).map { String(nullableCString: $0.whisper_print_system_info()) } ?? ""
    }

    private static let logReady = Mutex(false)

    /// Routes whisper.cpp's (and its ggml's) log into the SDK logger, once per process.
    static func ensureLogging() {
        logReady.withLock { ready in
            guard !ready, let library = try? WhisperLibrary.load() else { return }
            library.whisper_log_set(whisperLogCallback, nil)
            ready = true
        }
    }
}

extension InferenceFramework {
    /// Models run by whisper.cpp (ggml Whisper files); their store folder is `models/whispercpp/`.
    public static let whisperCpp = InferenceFramework("whispercpp")
}

/// The `BackendModule` that offers whisper.cpp speech recognition.
public struct WhisperCPPModule: BackendModule {
    /// The module's name, `whispercpp`.
    public let name = "whispercpp"
    /// Priority of the whisper.cpp STT provider; the highest wins when several can run a model.
    public let priority: Int

    /// Creates the module.
    public init(priority: Int = WhisperCPP.defaultPriority) {
        self.priority = priority
    }

    /// Offers whisper.cpp for speech-recognition models of framework `whisperCpp`.
    public func register(with registry: ServiceRegistry) {
        // libwhisper is opened on the first model load, not here: registering maps no engine.
        registry.registerSTT(
            name: "whisper.cpp",
            priority: priority,
            canHandle: { model in
                model.category == .speechRecognition && model.framework == .whisperCpp
            },
            factory: { model in
                WhisperCPP.ensureLogging()
                return try await WhisperCPPSTTService.load(model: model, accelerator: registry.acceleratorPreference)
            }
        )
    }

    /// Describes whisper.cpp for diagnostics; `available` is false when libwhisper cannot be opened.
    public func engineInfo() -> EngineInfo {
        WhisperCPP.ensureLogging()
        var details = ["system_info": WhisperCPP.systemInfo.trimmedSpaces()]
        if case .failure(let error) = WhisperLibrary.shared { details["error"] = error.message }
        return EngineInfo(
            name: "whisper.cpp",
            version: WhisperCPP.version,
            available: WhisperCPP.version != nil,
            details: details,
            gpuOffload: WhisperLibrary.hasGPU
        )
    }
}

private let whisperLogger = SDKLogger(category: "whisper.cpp")

/// whisper.cpp describes every load in detail; only errors are worth more than debug, and its
/// progress lines are logged only when the app asks for the engines' logs.
private let whisperLogCallback:
    @convention(c) (ggml_log_level, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = { level, text, _ in
        let isError = level == GGML_LOG_LEVEL_ERROR
        let logged: LogLevel = isError ? .warning : .debug
        let progress = !isError && level != GGML_LOG_LEVEL_WARN
        guard let line = SDKLogger.engineLine(text, at: logged, progress: progress) else { return }
        whisperLogger.log(logged, line)
    }
