import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereWhisperWindow

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

extension BenchCommand.STT {
    /// One clip of the real-speech set, transcribed.
    struct RealClip: Encodable {
        var id: String
        var speaker: String
        var seconds: Double
        var reference: String
        var text: String
        var wer: Double
        var ms: Double
        var rtf: Double
        /// Words said twice in a row in the transcript but not in the reference.
        var repeated: Bool
        /// The same clip through plain whisper.cpp with its full 30 s window.
        var fullWindowText: String?
        var fullWindowWER: Double?
        var fullWindowMs: Double?
    }

    /// Figures over a group of clips.
    struct RealSummary: Encodable {
        var label: String
        var clips: Int
        var wer: Double
        var fullWindowWER: Double?
        var p50Ms: Double
        var p95Ms: Double
        var maxMs: Double
        var rtfP50: Double
        var rtfP95: Double
        var rtfMax: Double
        var fullWindowP50Ms: Double?
    }

    struct RealReport: Encodable {
        var model: String
        var threads: Int
        var clips: Int
        var speakers: Int
        var audioMinutes: Double
        var all: RealSummary
        /// By duration: under 1 s, 1–3 s, 3–10 s, over 10 s.
        var byDuration: [RealSummary]
        /// The slowest clip under 10 s; the target is ≤ 500 ms.
        var maxMsUnder10s: Double?
        var repeatedClips: [String]
        var slowest: [RealClip]
        var worst: [RealClip]
        var results: [RealClip]?
    }

    /// `bench stt --real`: every clip of the real-speech set through the SDK, and through
    /// plain whisper.cpp with the full window for the error rate the SDK must not exceed.
    func executeReal() async throws {
        try await CLI.start(output.global)
        let corpus =
            try realSet.map { try SpeechCorpus(folder: URL(fileURLWithPath: $0)) } ?? SpeechCorpus.bootstrapped()
        let info = try RunAnywhere.model(model)
        guard let path = info.localPath else {
            throw SDKException(.modelFileNotFound, "Model '\(model)' has no local file")
        }
        let rawBinary = fullWindow ? try CLI.siblingExecutable("raw-whisper-bench", override: baseline.rawBinary) : nil
        try await RunAnywhere.loadSTTModel(model)
        let options = STTOptions(language: "en", threads: baseline.threads)
        let clips = limit.map { Array(corpus.clips.prefix($0)) } ?? corpus.clips
        let audioFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "runanywhere-bench-\(UUID().uuidString).f32"
        )
        defer { try? FileManager.default.removeItem(at: audioFile) }

        // Warm-up: the first call allocates the engine's buffers.
        if let first = clips.first {
            _ = try await RunAnywhere.transcribe(WAVFile.read(contentsOf: first.file).speechInput(), options: options)
        }
        /// A clip's result with its error counts, which add up over a group of clips.
        struct Scored {
            var clip: RealClip
            var errors: WordErrorRate
            var fullWindowErrors: WordErrorRate?
        }
        var scored: [Scored] = []
        for (index, clip) in clips.enumerated() {
            let audio = try WAVFile.read(contentsOf: clip.file).speechInput()
            let heard = try await RunAnywhere.transcribe(audio, options: options)
            let wer = WordErrorRate(reference: clip.transcript, hypothesis: heard.text)
            var result = Scored(
                clip: RealClip(
                    id: clip.id,
                    speaker: clip.speaker,
                    seconds: audio.duration,
                    reference: clip.transcript,
                    text: heard.text,
                    wer: wer.rate,
                    ms: heard.processingTimeMs,
                    rtf: heard.processingTimeMs / 1000 / audio.duration,
                    repeated: SpeechCorpus.repeatsWords(heard.text, reference: clip.transcript)
                ),
                errors: wer
            )
            if let rawBinary {
                try audio.float32Data.write(to: audioFile)
                let data = try CLI.runProcess(
                    rawBinary,
                    [
                        path.path, audioFile.path, String(baseline.threads), "0",
                        String(WhisperWindow.maxTokens(forSeconds: audio.duration)), "1",
                    ]
                )
                let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "{}"
                let raw = try JSONDecoder().decode(RawSample.self, from: Data(line.utf8))
                let fullWER = WordErrorRate(reference: clip.transcript, hypothesis: raw.text)
                result.fullWindowErrors = fullWER
                result.clip.fullWindowText = raw.text.trimmedSpaces()
                result.clip.fullWindowWER = fullWER.rate
                result.clip.fullWindowMs = raw.ms
            }
            scored.append(result)
            if !output.json, (index + 1) % 50 == 0 {
                CLI.writeError("  \(index + 1)/\(clips.count) clips\n")
            }
        }

        let results = scored.map(\.clip)
        func summary(_ label: String, _ members: [Scored]) -> RealSummary {
            let group = members.map(\.clip)
            return RealSummary(
                label: label,
                clips: group.count,
                wer: WordErrorRate(combining: members.map(\.errors)).rate,
                fullWindowWER: rawBinary == nil
                    ? nil : WordErrorRate(combining: members.compactMap(\.fullWindowErrors)).rate,
                p50Ms: CLI.median(group.map(\.ms)),
                p95Ms: CLI.percentile(group.map(\.ms), 0.95),
                maxMs: group.map(\.ms).max() ?? 0,
                rtfP50: CLI.median(group.map(\.rtf)),
                rtfP95: CLI.percentile(group.map(\.rtf), 0.95),
                rtfMax: group.map(\.rtf).max() ?? 0,
                fullWindowP50Ms: rawBinary == nil ? nil : CLI.median(group.compactMap(\.fullWindowMs))
            )
        }
        let buckets: [(String, ClosedRange<Double>)] = [
            ("< 1 s", 0...0.999), ("1-3 s", 1...2.999), ("3-10 s", 3...9.999), ("> 10 s", 10...Double.infinity),
        ]
        let report = RealReport(
            model: model,
            threads: baseline.threads,
            clips: results.count,
            speakers: Set(results.map(\.speaker)).count,
            audioMinutes: results.map(\.seconds).reduce(0, +) / 60,
            all: summary("all", scored),
            byDuration: buckets.map { label, range in summary(label, scored.filter { range.contains($0.clip.seconds) })
            }
            .filter { $0.clips > 0 },
            maxMsUnder10s: results.filter { $0.seconds < 10 }.map(\.ms).max(),
            repeatedClips: results.filter(\.repeated).map(\.id),
            slowest: Array(results.sorted { $0.ms > $1.ms }.prefix(5)),
            worst: Array(results.filter { $0.wer > 0 }.sorted { $0.wer > $1.wer }.prefix(10)),
            results: allClips ? results : nil
        )
        if output.json { return try CLI.printJSON(report) }
        print(
            "Real speech — \(model), \(report.clips) clips, \(report.speakers) speakers, \(CLI.format(report.audioMinutes, 1)) min, \(baseline.threads) threads"
        )
        print("                clips   WER %  full-window WER %   p50 ms   p95 ms   max ms  RTF p95  RTF max")
        for row in [report.all] + report.byDuration {
            let full = row.fullWindowWER.map { CLI.pad($0 * 100) } ?? "        -"
            print(
                "\(row.label.padded(to: 10))  \(CLI.pad(Double(row.clips), 0))  \(CLI.pad(row.wer * 100))          \(full)  \(CLI.pad(row.p50Ms))  \(CLI.pad(row.p95Ms))  \(CLI.pad(row.maxMs))  \(CLI.pad(row.rtfP95, 3))  \(CLI.pad(row.rtfMax, 3))"
            )
        }
        // No clip under 10 s is no figure, never a met target.
        print(
            "slowest clip under 10 s: "
                + (report.maxMsUnder10s.map { "\(CLI.format($0, 0)) ms" } ?? "missing (no clip under 10 s)")
                + " (target ≤ 500)"
        )
        print(
            "clips with words repeated: \(report.repeatedClips.isEmpty ? "none" : report.repeatedClips.joined(separator: ", "))"
        )
        for clip in report.worst.prefix(5) {
            print("  WER \(CLI.format(clip.wer * 100, 0))% \(clip.id): \"\(clip.text)\" for \"\(clip.reference)\"")
        }
    }
}
