internal import CSherpa
import Foundation
@_spi(Backend) import RunAnywhere

/// The sherpa-onnx backend: neural voices (Piper/VITS) and Silero voice activity detection.
///
/// Piper voices are phonemized with espeak-ng (through the system voice module), since
/// sherpa-onnx 2.x takes phonemes rather than text for them.
///
/// ```swift
/// Sherpa.register()
/// try RunAnywhere.initialize()
/// try await RunAnywhere.loadTTSModel("piper-en-us-joe-medium")
/// try await RunAnywhere.loadVADModel("silero-vad")
/// ```
///
/// An SDK instance of your own takes a ``SherpaModule`` instead:
/// `RunAnywhereSDK(home: home, modules: [SherpaModule(), SystemVoiceModule()])`.
public enum Sherpa {
    /// Default priority of the sherpa-onnx providers.
    public static let defaultPriority = 100

    /// Adds the sherpa-onnx module to the shared SDK (`RunAnywhere`).
    public static func register(priority: Int = defaultPriority) {
        RunAnywhere.register(SherpaModule(priority: priority))
    }

    /// sherpa-onnx's version, or `unavailable` when its library cannot be opened.
    public static var version: String {
        (try? SherpaLibrary.load()).map { String(nullableCString: $0.SherpaOnnxGetVersionStr()) } ?? "unavailable"
    }
}

extension InferenceFramework {
    /// Models run by sherpa-onnx (ONNX voices and VAD); their store folder is `models/sherpa/`.
    public static let sherpaOnnx = InferenceFramework("sherpa")
}

/// The `BackendModule` that offers sherpa-onnx voices and voice activity detection.
public struct SherpaModule: BackendModule {
    /// The module's name, `sherpa`.
    public let name = "sherpa"
    /// Priority of the sherpa-onnx providers; the highest wins when several can run a model.
    public let priority: Int

    /// Creates the module.
    public init(priority: Int = Sherpa.defaultPriority) {
        self.priority = priority
    }

    /// Offers sherpa-onnx for ONNX voice and voice-activity models of framework `sherpaOnnx`.
    public func register(with registry: ServiceRegistry) {
        registry.registerTTS(
            name: "sherpa-onnx",
            priority: priority,
            canHandle: { model in
                model.category == .speechSynthesis && model.framework == .sherpaOnnx && model.format == .onnx
            },
            factory: { model in
                try await SherpaTTSService.load(model: model)
            }
        )
        registry.registerVAD(
            name: "sherpa-onnx",
            priority: priority,
            canHandle: { model in
                model.category == .voiceActivityDetection && model.framework == .sherpaOnnx && model.format == .onnx
            },
            factory: { model in
                try await SherpaVADService.load(model: model)
            }
        )
    }

    /// Describes sherpa-onnx for diagnostics.
    public func engineInfo() -> EngineInfo {
        switch SherpaLibrary.shared {
        case .success(let sherpa):
            EngineInfo(
                name: "sherpa-onnx",
                version: String(nullableCString: sherpa.SherpaOnnxGetVersionStr()),
                available: true
            )
        case .failure(let error):
            EngineInfo(name: "sherpa-onnx", version: nil, available: false, details: ["error": error.message])
        }
    }
}
