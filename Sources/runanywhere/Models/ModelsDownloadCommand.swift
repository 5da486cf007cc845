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

extension ModelsCommand {
    /// `runanywhere models download ID`: a progress bar on a terminal, JSON lines with `--json`.
    struct Download: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download a registered model into the store.",
            discussion: "An interrupted download resumes where it stopped when run again."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String
        @Flag(name: .long, help: "Print one JSON line per progress report.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            try await Self.download(id, json: json)
        }

        /// Downloads a registered model, reporting progress as the command does.
        static func download(_ id: String, json: Bool) async throws {
            let bar = !json && isatty(STDOUT_FILENO) == 1
            var lastStage: DownloadStage?
            var last: DownloadProgress?
            for await progress in try RunAnywhere.downloadModel(id) {
                last = progress
                if json {
                    try CLI.printJSON(ProgressLine(progress))
                } else if bar {
                    CLI.write("\r\u{1B}[2K" + barLine(progress) + (progress.isFinal ? "\n" : ""))
                } else if progress.stage != .failed, progress.stage != lastStage || progress.retry != last?.retry {
                    print(plainLine(progress))
                }
                lastStage = progress.stage
            }
            guard let last, last.stage == .completed, let model = last.model else {
                throw last?.error ?? SDKException(.internalError, "The download ended without a result")
            }
            if !json { print("Downloaded \(model.id) → \(model.localPath?.path ?? "?")") }
        }

        static func barLine(_ p: DownloadProgress) -> String {
            let width = 30
            let filled = Int((p.overallProgress * Double(width)).rounded(.down))
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            var text = "\(bar) \(String(printf: "%3.0f", p.overallProgress * 100))% \(p.stage.rawValue)"
            if p.stage == .downloading {
                text += "  \(CLI.bytes(p.bytesDownloaded))"
                if let total = p.totalBytes { text += " / \(CLI.bytes(total))" }
                if p.bytesPerSecond > 0 { text += "  \(CLI.bytes(Int64(p.bytesPerSecond)))/s" }
                if let eta = p.estimatedTimeRemaining { text += "  ETA \(Int(eta.rounded(.up))) s" }
                if p.retry > 0 { text += "  (retry \(p.retry))" }
            }
            return text
        }

        static func plainLine(_ p: DownloadProgress) -> String {
            var text = "\(p.stage.rawValue)"
            if let file = p.currentFile { text += " \(file)" }
            if p.retry > 0 { text += " (retry \(p.retry))" }
            return text
        }
    }

    /// `runanywhere models pull REFERENCE`: registers a model by reference and downloads it.
    struct Pull: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract:
                "Register a model by reference and download it: hf.co/ORG/REPO/FILE.gguf or hf.co/ORG/REPO:QUANT.",
            discussion: """
                The Hugging Face hub says which file, its size and its SHA-256. HF_TOKEN, when set, goes \
                to the hub (gated and private repositories); HF_ENDPOINT names a mirror. Pulling again \
                resumes an interrupted download.
                """
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "hf.co/ORG/REPO/FILE.gguf, or hf.co/ORG/REPO[:QUANT] (Q4_K_M by default).") var reference:
            String
        @Option(help: "The id to register it under (default: the file's name without .gguf).") var id: String?
        @Option(help: "llm, embedding, vlm, … (default llm).") var category: ModelCategory = .llm
        @Option(help: "The engine that runs it (default llamacpp).") var framework: InferenceFramework = .llamaCpp
        @Flag(name: .long, help: "Print one JSON line per progress report.") var json = false

        func execute() async throws {
            try await CLI.start(global)
            let model = try await RunAnywhere.registerModel(
                reference: reference,
                id: id,
                category: category,
                framework: framework
            )
            if !json { print("\(reference) → \(model.id)") }
            if model.isDownloaded {
                if !json { print("Already downloaded: \(model.localPath?.path ?? "?")") }
                return
            }
            try await Download.download(model.id, json: json)
        }
    }

    /// One progress report as a JSON line.
    struct ProgressLine: Encodable {
        let modelId: String
        let stage: String
        let bytesDownloaded: Int64
        let totalBytes: Int64?
        let bytesPerSecond: Double
        let etaSeconds: Double?
        let stageProgress: Double
        let overallProgress: Double
        let file: String?
        let retry: Int
        let localPath: String?
        let errorCode: String?
        let error: String?

        init(_ p: DownloadProgress) {
            modelId = p.modelId
            stage = p.stage.rawValue
            bytesDownloaded = p.bytesDownloaded
            totalBytes = p.totalBytes
            bytesPerSecond = (p.bytesPerSecond * 10).rounded() / 10
            etaSeconds = p.estimatedTimeRemaining.map { ($0 * 10).rounded() / 10 }
            stageProgress = (p.stageProgress * 1000).rounded() / 1000
            overallProgress = (p.overallProgress * 1000).rounded() / 1000
            file = p.currentFile
            retry = p.retry
            localPath = p.model?.localPath?.path
            errorCode = p.error?.code.rawValue
            error = p.error?.message
        }
    }
}
