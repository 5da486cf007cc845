internal import CESpeak
@_spi(Backend) import RunAnywhere

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
    /// Models of the system voice's framework.
    public var frameworks: [InferenceFramework] { [.systemVoice] }

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
        switch ESpeakLibrary.shared {
        case .success(let espeak):
            EngineInfo(name: "espeak-ng", version: String(nullableCString: espeak.espeak_Info(nil)), available: true)
        case .failure(let error):
            EngineInfo(name: "espeak-ng", version: nil, available: false, details: ["error": error.message])
        }
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

    func synthesize(_ text: String, voice: String, options: TTSOptions) async throws -> PCMAudio {
        try await synthesizeWithWordTimings(text, voice: voice, options: options).audio
    }

    /// The audio with espeak-ng's own word timings: a word starts where its event says and
    /// ends where the next starts (the last where the voice falls silent). espeak-ng runs some
    /// short words into their neighbour without an event of their own ("on the"); those share
    /// their neighbour's time by length and are marked estimated.
    func synthesizeWithWordTimings(
        _ text: String,
        voice: String,
        options: TTSOptions
    ) async throws -> (audio: PCMAudio, words: [TTSWordTiming]?) {
        let language =
            voice.hasPrefix("\(SystemVoice.voicePrefix):")
            ? String(voice.dropFirst(SystemVoice.voicePrefix.count + 1)) : voice
        let (audio, events) = try await engine.synthesizeWithWords(
            text,
            language: language,
            wordsPerMinute: Int((Float(175) * options.rate).rounded()),
            pitch: Int((50 * options.pitch).rounded())
        )
        let estimate = TTSWordTiming.estimate(text, in: audio)
        guard !events.isEmpty, !estimate.isEmpty else { return (audio, nil) }
        // The text's words (as the estimate splits them) with their character ranges.
        var words: [(text: String, range: Range<Int>)] = []
        var offset = 0
        for piece in text.split(omittingEmptySubsequences: false, whereSeparator: \.isWhitespace) {
            if piece.contains(where: { $0.isLetter || $0.isNumber }) {
                words.append((String(piece), offset..<(offset + piece.count)))
            }
            offset += piece.count + 1
        }
        guard words.count == estimate.count else { return (audio, nil) }
        // The event that starts inside each word, if any (positions count from 1).
        var starts: [Double?] = words.map { word in
            events.first { word.range.contains($0.position - 1) }.map { Double($0.milliseconds) / 1000 }
        }
        guard starts.contains(where: { $0 != nil }) else { return (audio, nil) }
        let reported = starts.map { $0 != nil }
        // Runs of words without an event share the time from the word before them to the next
        // reported start, by length.
        let voicedStart = estimate.first?.start ?? 0
        let voicedEnd = max(estimate.last?.end ?? audio.duration, starts.compactMap { $0 }.max() ?? 0)
        var index = 0
        while index < words.count {
            guard starts[index] == nil else {
                index += 1
                continue
            }
            var runEnd = index
            while runEnd < words.count, starts[runEnd] == nil { runEnd += 1 }
            let from = index > 0 ? index - 1 : index
            let begin = index > 0 ? starts[index - 1]! : voicedStart
            let finish = runEnd < words.count ? starts[runEnd]! : voicedEnd
            let weights = words[from..<runEnd].map { Double($0.text.count + 1) }
            let total = weights.reduce(0, +)
            var cursor = begin
            for (position, weight) in zip(from..<runEnd, weights) {
                if starts[position] == nil { starts[position] = cursor }
                cursor += (finish - begin) * weight / total
            }
            index = runEnd
        }
        let timings = words.indices.map { position in
            let start = starts[position] ?? voicedStart
            let end = position + 1 < words.count ? max(start, starts[position + 1] ?? start) : max(start, voicedEnd)
            return TTSWordTiming(text: words[position].text, start: start, end: end, estimated: !reported[position])
        }
        return (audio, timings)
    }

    func unload() async {}
}
