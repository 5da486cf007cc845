internal import CSherpa
import Foundation
import RunAnywhere

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
public enum Sherpa {
    /// Default priority of the sherpa-onnx providers.
    public static let defaultPriority = 100

    /// Adds the sherpa-onnx module to the SDK.
    public static func register(priority: Int = defaultPriority) {
        RunAnywhere.register(SherpaModule(priority: priority))
    }

    /// sherpa-onnx's version.
    public static var version: String { String(cString: SherpaOnnxGetVersionStr()) }
}

/// The ``BackendModule`` that offers sherpa-onnx voices and voice activity detection.
public struct SherpaModule: BackendModule {
    public let name = "sherpa"
    public let priority: Int

    public init(priority: Int = Sherpa.defaultPriority) {
        self.priority = priority
    }

    public func register(with registry: ServiceRegistry) {
        registry.registerTTS(name: "sherpa-onnx", priority: priority, canHandle: { model in
            model.category == .speechSynthesis && model.framework == .sherpaOnnx && model.format == .onnx
        }, factory: { model in
            try await SherpaTTSService.load(model: model)
        })
        registry.registerVAD(name: "sherpa-onnx", priority: priority, canHandle: { model in
            model.category == .voiceActivityDetection && model.framework == .sherpaOnnx && model.format == .onnx
        }, factory: { model in
            try await SherpaVADService.load(model: model)
        })
    }

    public func engineInfo() -> EngineInfo {
        EngineInfo(name: "sherpa-onnx", version: Sherpa.version, available: true)
    }
}
