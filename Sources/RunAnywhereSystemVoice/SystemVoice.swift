internal import CESpeak
import Foundation
@_spi(Backend) import RunAnywhere

/// The built-in system voice: espeak-ng, which needs no model download (the Linux
/// counterpart of AVSpeechSynthesizer). It speaks whenever no neural voice is loaded.
///
/// ```swift
/// SystemVoice.register()
/// try RunAnywhere.initialize()
/// let output = try await RunAnywhere.synthesize("Hello from the system voice.")
/// ```
///
/// An SDK instance of your own takes a ``SystemVoiceModule`` instead:
/// `RunAnywhereSDK(home: home, modules: [SystemVoiceModule()])`.
public enum SystemVoice {
    /// Voice ids look like `espeak-ng:en-us`.
    public static let voicePrefix = "espeak-ng"

    /// Adds the system voice module to the shared SDK (`RunAnywhere`).
    public static func register() {
        RunAnywhere.register(SystemVoiceModule())
    }
}

extension InferenceFramework {
    /// The system voice's framework id.
    public static let systemVoice = InferenceFramework("system")
}

/// The `BackendModule` that offers the espeak-ng system voice.
public struct SystemVoiceModule: BackendModule {
    /// The module's name, `system-voice`.
    public let name = "system-voice"

    /// Creates the module.
    public init() {}

    /// Offers espeak-ng as the system voice, which speaks whenever no voice model is loaded.
    public func register(with registry: ServiceRegistry) {
        registry.registerSystemTTS(name: "espeak-ng") {
            try await SystemVoiceTTSService.start()
        }
    }

    /// Describes espeak-ng for diagnostics.
    public func engineInfo() -> EngineInfo {
        // espeak_Info only reads a constant; it needs no initialized engine.
        EngineInfo(name: "espeak-ng", version: String(cString: espeak_Info(nil)), available: true)
    }
}

/// espeak-ng as a ``TTSService``.
final class SystemVoiceTTSService: TTSService {
    let voices: [TTSVoice]
    private let engine = ESpeakEngine.shared

    private init(voices: [TTSVoice]) {
        self.voices = voices
    }

    static func start() async throws -> SystemVoiceTTSService {
        let engine = ESpeakEngine.shared
        let rate = try await engine.sampleRate()
        let voices = try await engine.voices().map { voice in
            TTSVoice(
                id: "\(SystemVoice.voicePrefix):\(voice.language)",
                name: "espeak-ng \(voice.name)",
                language: voice.language,
                sampleRate: rate,
                isSystem: true
            )
        }
        return SystemVoiceTTSService(voices: voices)
    }

    func synthesize(_ text: String, voice: String, options: TTSOptions) async throws -> AudioBuffer {
        let language =
            voice.hasPrefix("\(SystemVoice.voicePrefix):")
            ? String(voice.dropFirst(SystemVoice.voicePrefix.count + 1)) : voice
        return try await engine.synthesize(
            text,
            language: language,
            wordsPerMinute: Int((Float(175) * options.rate).rounded()),
            pitch: Int((50 * options.pitch).rounded())
        )
    }

    func unload() async {}
}
