import ArgumentParser
import Dispatch
import Logging
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereServer

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

/// `runanywhere serve`: the OpenAI-compatible server in the foreground until SIGINT or SIGTERM.
struct ServeCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: CompanionCommand.serve.abstract,
        discussion: """
            Endpoints: /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/audio/transcriptions, \
            /v1/audio/speech, /v1/models, and /health, /metrics, /openapi.json. Models load on first use \
            unless --preload. Binds 127.0.0.1 unless --host says otherwise. The API key may also come \
            from RUNANYWHERE_API_KEY.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind (0: any free port).") var port = 8080
    @Option(name: .customLong("model"), help: "A model id to offer (repeatable; default: every registered model).")
    var models: [String] = []
    @Flag(help: "Load the offered models at start instead of on first use.") var preload = false
    @Option(help: "Chat requests decoded together (continuous batching).") var slots = 4
    @Option(name: .customLong("context-length"), help: "Context per slot in tokens.") var contextLength: Int?
    @Option(help: "Decoding threads.") var threads: Int?
    @Option(name: .customLong("queue-size"), help: "Requests that may wait beyond the slots; more get 429.")
    var queueSize = 32
    @Option(
        name: .customLong("api-key"),
        help: """
            Require 'Authorization: Bearer KEY' on /v1 routes. Prefer RUNANYWHERE_API_KEY: an argument \
            is visible to every user of the machine in the process list.
            """
    )
    var apiKey: String?
    @Option(help: "An origin allowed to call from a browser ('*' for any).") var cors: String?
    @Option(name: .customLong("max-body-mb"), help: "Largest JSON body in MiB.") var maxBodyMB = 4
    @Option(name: .customLong("max-audio-mb"), help: "Largest audio upload in MiB.") var maxAudioMB = 25
    @Option(name: .customLong("max-speech-chars"), help: "Longest text /v1/audio/speech speaks.")
    var maxSpeechCharacters = 4096

    func execute() async throws {
        try await CLI.start(global)
        guard let sdk = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
        for id in models { _ = try sdk.model(id) }
        let configuration = OpenAIServerConfiguration(
            host: host,
            port: port,
            models: models,
            preload: preload,
            slots: slots,
            contextLength: contextLength,
            threads: threads,
            queueSize: queueSize,
            apiKey: apiKey
                ?? ProcessInfo.processInfo.environment["RUNANYWHERE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 },
            corsOrigin: cors,
            maxBodyBytes: maxBodyMB << 20,
            maxAudioBytes: maxAudioMB << 20,
            maxSpeechCharacters: maxSpeechCharacters
        )
        var logger = Logger(label: "runanywhere.server")
        logger.logLevel = global.verbose ? .info : .warning
        let server = try await OpenAIServer.start(sdk: sdk, configuration: configuration, logger: logger)
        let stop = CLI.terminationSignals()
        say("Serving an OpenAI-compatible API on \(server.baseURL.absoluteString)v1")
        say("Models offered: \(server.offeredModels.map(\.id).joined(separator: ", "))")
        let loaded = await server.loadedModels
        say("Models loaded: \(loaded.isEmpty ? "none yet (they load on first use)" : loaded.joined(separator: ", "))")
        if configuration.apiKey != nil { say("Requests need 'Authorization: Bearer <key>'.") }
        let signal = await stop.first { _ in true } ?? "signal"
        say("Received \(signal): stopping.")
        await server.stop()
        await sdk.shutdown()
    }

    /// A line on stdout at once, even when stdout is a pipe (scripts wait for these lines).
    private func say(_ line: String) {
        CLI.write(line + "\n")
    }
}
