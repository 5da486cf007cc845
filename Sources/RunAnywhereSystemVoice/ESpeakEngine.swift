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

/// The process's one espeak-ng instance.
///
/// espeak-ng keeps global state (current voice, parameters, one synthesis callback), so
/// every call goes through this object's thread, strictly one at a time. Synthesis runs
/// in `AUDIO_OUTPUT_SYNCHRONOUS` mode: the callback fires on that same thread, inside
/// `espeak_Synth`, and appends to the buffer of the request in progress.
package final class ESpeakEngine: Sendable {
    /// The shared engine, started on first use.
    package static let shared = ESpeakEngine()

    private let worker = WorkerThread(name: "espeak-ng")
    private let startup: Task<Int, any Error>

    private init() {
        let worker = self.worker
        startup = Task {
            try await worker.run { () throws -> Int in
                let espeak = try ESpeakLibrary.load()
                let rate = espeak.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
                guard rate > 0 else {
                    throw SDKException(
                        .backendError,
                        "espeak-ng failed to initialize (its data files may be missing)",
                        recovery: "apt-get install espeak-ng-data"
                    )
                }
                espeak.espeak_SetSynthCallback(espeakSynthCallback)
                return Int(rate)
            }
        }
    }

    /// The rate espeak-ng synthesizes at (22050 Hz).
    package func sampleRate() async throws -> Int { try await startup.value }

    /// espeak-ng's version string.
    package func version() async throws -> String {
        _ = try await startup.value
        return try await worker.run {
            var path: UnsafePointer<CChar>?
            return String(nullableCString: espeak.espeak_Info(&path))
        }
    }

    /// The installed voices as (language code, display name, gender), `en-us` first.
    package func voices() async throws -> [(language: String, name: String, gender: Int)] {
        _ = try await startup.value
        let list = try await worker.run { () -> [(String, String, Int)] in
            guard var cursor = espeak.espeak_ListVoices(nil) else { return [] }
            var voices: [(String, String, Int)] = []
            while let voice = cursor.pointee {
                // `languages` is a run of (priority byte, NUL-terminated code); the first is the main one.
                if let languages = voice.pointee.languages, let name = voice.pointee.name {
                    let language = String(cString: languages + 1)
                    voices.append((language, String(cString: name), Int(voice.pointee.gender)))
                }
                cursor += 1
            }
            return voices
        }
        return list.sorted { a, b in
            if (a.0 == "en-us") != (b.0 == "en-us") { return a.0 == "en-us" }
            return a.0 < b.0
        }
    }

    /// Speaks `text` with the voice for `language`, at `wordsPerMinute` and `pitch` (0–100, 50 normal).
    package func synthesize(
        _ text: String,
        language: String,
        wordsPerMinute: Int,
        pitch: Int
    ) async throws -> PCMAudio {
        try await synthesizeWithWords(text, language: language, wordsPerMinute: wordsPerMinute, pitch: pitch).audio
    }

    /// As ``synthesize(_:language:wordsPerMinute:pitch:)``, with espeak-ng's word events: each
    /// word's first character (counted from 1), its length in characters, and the millisecond
    /// its audio starts.
    package func synthesizeWithWords(
        _ text: String,
        language: String,
        wordsPerMinute: Int,
        pitch: Int
    ) async throws -> (audio: PCMAudio, words: [(position: Int, length: Int, milliseconds: Int)]) {
        let rate = try await startup.value
        let (samples, words) = try await worker.run { () throws -> ([Int16], [(Int, Int, Int)]) in
            try Self.select(language)
            _ = espeak.espeak_SetParameter(
                espeakRATE,
                Int32(max(Int(espeakRATE_MINIMUM), min(Int(espeakRATE_MAXIMUM), wordsPerMinute))),
                0
            )
            _ = espeak.espeak_SetParameter(espeakPITCH, Int32(max(0, min(100, pitch))), 0)
            _ = espeak.espeak_SetParameter(espeakVOLUME, 100, 0)
            let sink = SampleSink()
            let box = Unmanaged.passRetained(sink)
            defer { box.release() }
            let bytes = Array(text.utf8CString)
            let status = bytes.withUnsafeBufferPointer { buffer in
                espeak.espeak_Synth(
                    buffer.baseAddress,
                    buffer.count,
                    0,
                    POS_CHARACTER,
                    0,
                    UInt32(espeakCHARS_UTF8),
                    nil,
                    box.toOpaque()
                )
            }
            guard status == EE_OK else {
                throw SDKException(.backendError, "espeak-ng could not synthesize (status \(status.rawValue))")
            }
            _ = espeak.espeak_Synchronize()
            return (sink.samples, sink.words)
        }
        return (PCMAudio(int16: samples, sampleRate: rate), words.map { ($0.0, $0.1, $0.2) })
    }

    /// IPA phonemes of `text`, one string per clause, each followed by the clause's own
    /// punctuation (`,` `.` `?` `!` …), which espeak drops but prosody needs.
    package func phonemes(_ text: String, language: String) async throws -> [String] {
        _ = try await startup.value
        return try await worker.run { () throws -> [String] in
            try Self.select(language)
            var clauses: [String] = []
            let bytes = Array(text.utf8CString)
            bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                var cursor: UnsafeRawPointer? = UnsafeRawPointer(base)
                while let start = cursor {
                    var next: UnsafeRawPointer? = start
                    guard let result = espeak.espeak_TextToPhonemes(&next, espeakCHARS_UTF8, espeakPHONEMES_IPA) else {
                        break
                    }
                    let phonemes = Self.removingLanguageSwitches(String(cString: result)).trimmedSpaces()
                    // The clause's source text ends where the cursor now points, except that
                    // espeak leaves it one character into the next clause.
                    var end = UnsafeRawPointer(base + buffer.count - 1)
                    if let next {
                        end = max(start, next - 1)
                        // Step back to the first byte of that character if it is multi-byte.
                        while end > start, end.load(as: UInt8.self) & 0xC0 == 0x80 { end -= 1 }
                    }
                    let consumed = String(
                        decoding: UnsafeRawBufferPointer(start: start, count: end - start),
                        as: UTF8.self
                    )
                    let punctuation = consumed.trimmed { $0.isWhitespace || "\"')]}»”’".contains($0) }.last.flatMap {
                        ",.;:!?".contains($0) ? String($0) : nil
                    }
                    if !phonemes.isEmpty { clauses.append(phonemes + (punctuation ?? "")) }
                    cursor = next
                }
            }
            return clauses
        }
    }

    /// espeak marks words it reads in another language as `(fr)…(en)`; those marks are not phonemes.
    private static func removingLanguageSwitches(_ phonemes: String) -> String {
        phonemes.replacing(#/\([a-z]{2,3}(-[a-z0-9]+)?\)/#, with: "")
    }

    private static func select(_ language: String) throws {
        guard espeak.espeak_SetVoiceByName(language) == EE_OK else {
            throw SDKException(.voiceNotFound, "espeak-ng has no voice '\(language)'")
        }
    }
}

/// Where the synthesis callback puts samples; lives for one `espeak_Synth` call.
private final class SampleSink: @unchecked Sendable {
    var samples: [Int16] = []
    /// espeak-ng's word events: the word's first character (from 1), its length in
    /// characters, and where its audio starts, in milliseconds.
    var words: [(position: Int, length: Int, milliseconds: Int)] = []
}

private let espeakSynthCallback:
    @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32 = {
        wav,
        count,
        events in
        guard let events, let user = events.pointee.user_data else { return 0 }
        let sink = Unmanaged<SampleSink>.fromOpaque(user).takeUnretainedValue()
        if let wav, count > 0 { sink.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
        var event = events
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            if event.pointee.type == espeakEVENT_WORD {
                sink.words.append(
                    (Int(event.pointee.text_position), Int(event.pointee.length), Int(event.pointee.audio_position))
                )
            }
            event += 1
        }
        return 0
    }
