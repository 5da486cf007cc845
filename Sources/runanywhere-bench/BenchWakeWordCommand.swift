import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

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

extension BenchCommand {
    /// Wake-word detection rate and false accepts per hour, on real recordings and on
    /// phrases spoken by the voices installed here.
    struct WakeWord: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "wakeword",
            abstract: "Wake-word detection rate and false accepts per hour of other speech."
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(
            name: .customLong("phrase"),
            help: "A phrase to measure (repeat). Default: \"hey computer\" and \"please try again\"."
        )
        var phrases: [String] = []
        @Option(help: "From 0 (fewer false accepts) to 1 (fewer misses).") var sensitivity: Float = 0.5
        @Option(help: "pocketsphinx, or transcript (the speech model reads a sliding window).")
        var engine: WakeWordEngine = .pocketsphinx
        @Option(name: .customLong("real-set"), help: "The real-speech set (default: $RUNANYWHERE_SPEECH_SET).")
        var realSet: String?

        /// Detections of one phrase in one group of recordings that say it.
        struct Detection: Encodable {
            var source: String
            var recordings: Int
            var detected: Int
            var rate: Double
            var missed: [String]
        }

        /// False accepts of one phrase over speech that never says it.
        struct FalseAccepts: Encodable {
            var source: String
            var minutes: Double
            var falseAccepts: Int
            var perHour: Double
            var heardIn: [String]
        }

        struct PhraseReport: Encodable {
            var phrase: String
            var detection: [Detection]
            var falseAccepts: [FalseAccepts]
        }

        struct Report: Encodable {
            var engine: String
            var sensitivity: Float
            var phrases: [PhraseReport]
            var processingSeconds: Double
            var audioMinutes: Double
            var realTimeFactor: Double
        }

        /// A recording and the name it is reported under.
        struct Recording {
            var name: String
            var audio: PCMAudio
        }

        func execute() async throws {
            try await CLI.start(output.global, keywordSpotter: engine == .pocketsphinx)
            let corpus = try realSet.map { try SpeechCorpus(folder: URL(fileURLWithPath: $0)) } ?? .bootstrapped()
            if engine == .transcript {
                try await RunAnywhere.loadSTTModel(CLI.Defaults.stt)
            }
            // Phrases spoken by a voice: the neural voice when installed, else the system voice.
            if let voice = CLI.model(nil, orDefault: CLI.Defaults.tts) { try await RunAnywhere.loadTTSModel(voice) }
            let measured = phrases.isEmpty ? ["hey computer", "please try again"] : phrases
            let clips = try corpus.clips.map { clip in
                (clip: clip, audio: try WAVFile.read(contentsOf: clip.file).mono())
            }
            var processing: Duration = .zero
            var audioSeconds = 0.0
            var reports: [PhraseReport] = []

            func spotted(_ audio: PCMAudio, _ phrase: String) async throws -> [WakeWordDetection] {
                let started = ContinuousClock.now
                let found = try await RunAnywhere.detectWakeWords(
                    in: audio,
                    configuration: WakeWordConfiguration(phrases: [phrase], sensitivity: sensitivity)
                )
                processing += started.duration(to: .now)
                audioSeconds += audio.duration
                return found
            }

            /// Each recording on its own stream: a detection rate is about separate occasions.
            func spotEach(_ recordings: [Recording], _ phrase: String) async throws -> [[WakeWordDetection]] {
                var found: [[WakeWordDetection]] = []
                for recording in recordings { found.append(try await spotted(recording.audio, phrase)) }
                return found
            }

            /// Recordings joined with 1 s of silence between them, one stream per sample rate (each
            /// engine brings a rate to its own the way it needs); the detections in each recording
            /// (or within half a second after it). False accepts per hour are about long streams.
            func spotJoined(_ recordings: [Recording], _ phrase: String) async throws -> [[WakeWordDetection]] {
                var found = [[WakeWordDetection]](repeating: [], count: recordings.count)
                for rate in Set(recordings.map(\.audio.sampleRate)) {
                    let members = recordings.indices.filter { recordings[$0].audio.sampleRate == rate }
                    var joined = PCMAudio.silence(duration: 0.5, sampleRate: rate)
                    var spans: [(Double, Double)] = []
                    for index in members {
                        let start = joined.duration
                        joined.append(recordings[index].audio)
                        spans.append((start, joined.duration))
                        joined.append(.silence(duration: 1, sampleRate: rate))
                    }
                    let detections = try await spotted(joined, phrase)
                    for (index, span) in zip(members, spans) {
                        found[index] = detections.filter { $0.time >= span.0 && $0.time < span.1 + 0.5 }
                    }
                }
                return found
            }

            // Every sentence of the set read by the voice here, once: speech of another kind,
            // from which each phrase takes the sentences that do not say it.
            var readings: [(transcript: String, recording: Recording)] = []
            for clip in corpus.clips where !WordErrorRate.words(clip.transcript).isEmpty {
                let audio = try await RunAnywhere.synthesize(clip.transcript).audio.speechInput()
                readings.append((clip.transcript, Recording(name: "read: \(clip.id)", audio: audio)))
            }

            for phrase in measured {
                let words = WordErrorRate.words(phrase)
                func says(_ text: String) -> Bool {
                    WakeWordConfiguration.contains(WordErrorRate.words(text), phrase: words)
                }
                var detection: [Detection] = []
                func detect(_ source: String, _ recordings: [Recording]) async throws {
                    guard !recordings.isEmpty else { return }
                    let found = try await spotEach(recordings, phrase)
                    let missed = zip(recordings, found).filter { $1.isEmpty }.map(\.0.name)
                    detection.append(
                        Detection(
                            source: source,
                            recordings: recordings.count,
                            detected: recordings.count - missed.count,
                            rate: Double(recordings.count - missed.count) / Double(recordings.count),
                            missed: missed
                        )
                    )
                }
                // Real people saying it, where the set has them.
                try await detect(
                    "real recordings",
                    clips.filter { says($0.clip.transcript) }.map { Recording(name: $0.clip.id, audio: $0.audio) }
                )
                // The voices here saying it, alone, before a question, and in noise.
                try await detect("synthetic voices", try await spokenPhrases(phrase))

                func countFalseAccepts(_ source: String, _ recordings: [Recording]) async throws -> FalseAccepts {
                    let found = try await spotJoined(recordings, phrase)
                    let minutes = recordings.map(\.audio.duration).reduce(0, +) / 60
                    let count = found.map(\.count).reduce(0, +)
                    return FalseAccepts(
                        source: source,
                        minutes: minutes,
                        falseAccepts: count,
                        perHour: Double(count) / (minutes / 60),
                        heardIn: zip(recordings, found).filter { !$1.isEmpty }.map(\.0.name)
                    )
                }
                let falseAccepts = [
                    try await countFalseAccepts(
                        "real recordings",
                        clips.filter { !says($0.clip.transcript) }.map { Recording(name: $0.clip.id, audio: $0.audio) }
                    ),
                    try await countFalseAccepts(
                        "synthetic reading",
                        readings.filter { !says($0.transcript) }.map(\.recording)
                    ),
                ]
                reports.append(PhraseReport(phrase: phrase, detection: detection, falseAccepts: falseAccepts))
            }
            let seconds = processing.seconds
            let report = Report(
                engine: await RunAnywhere.wakeWordEngine ?? engine.rawValue,
                sensitivity: sensitivity,
                phrases: reports,
                processingSeconds: seconds,
                audioMinutes: audioSeconds / 60,
                realTimeFactor: seconds / max(audioSeconds, 1e-9)
            )
            if output.json { return try CLI.printJSON(report) }
            print("engine \(report.engine), sensitivity \(sensitivity)")
            for phrase in reports {
                print("\"\(phrase.phrase)\"")
                for row in phrase.detection {
                    print(
                        "  detected  \(row.detected)/\(row.recordings) \(row.source) (\(CLI.format(100 * row.rate))%)"
                    )
                }
                for row in phrase.falseAccepts {
                    print(
                        "  false accepts \(row.falseAccepts) in \(CLI.format(row.minutes)) min of \(row.source) (\(CLI.format(row.perHour)) per hour)"
                    )
                }
            }
            print("processing: real-time factor \(CLI.format(report.realTimeFactor, 4))")
        }

        /// `phrase` said by the voice at three speeds, alone and followed by a question, each
        /// clean and in white noise 20 dB under the speech (a quiet room).
        private func spokenPhrases(_ phrase: String) async throws -> [Recording] {
            var recordings: [Recording] = []
            let question = try await RunAnywhere.synthesize("What is the weather like tomorrow?").audio.speechInput()
            for rate: Float in [0.85, 1, 1.2] {
                let said = try await RunAnywhere.synthesize(phrase, options: TTSOptions(rate: rate)).audio.speechInput()
                var asked = said
                asked.append(.silence(duration: 0.3, sampleRate: 16_000))
                asked.append(question)
                for (name, audio) in [("alone", said), ("before a question", asked)] {
                    recordings.append(Recording(name: "\(name), rate \(rate)", audio: audio))
                    recordings.append(Recording(name: "\(name), rate \(rate), noise", audio: noisy(audio, snr: 20)))
                }
            }
            return recordings
        }

        /// `audio` with white noise `snr` dB under its level, from a fixed seed.
        private func noisy(_ audio: PCMAudio, snr: Float) -> PCMAudio {
            // Uniform noise in -1...1 has an RMS of 1/√3.
            let level = PCMAudio.rms(audio.samples[...]) * pow(10, -snr / 20) * Float(3).squareRoot()
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let samples = audio.samples.map { sample -> Float in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let uniform = Float(Int64(bitPattern: state >> 11) % 2_000_000) / 1_000_000 - 1
                return sample + level * uniform
            }
            return PCMAudio(samples: samples, sampleRate: audio.sampleRate)
        }
    }
}
