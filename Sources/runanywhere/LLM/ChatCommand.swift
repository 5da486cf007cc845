import ArgumentParser
import Foundation
import RunAnywhere

/// An interactive (or scripted) conversation: one user turn per line of stdin.
struct ChatCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with a model; each line of stdin is a user turn (`/reset` clears history)."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Model id.") var model: String
    @OptionGroup var sampling: SamplingOptions

    func execute() async throws {
        try CLI.start(global)
        try await RunAnywhere.loadModel(model)
        let interactive = isatty(STDIN_FILENO) != 0
        var history: [ChatMessage] = sampling.system.map { [.system($0)] } ?? []
        let base = history
        var options = sampling.options
        options.systemPrompt = nil
        while true {
            if interactive { CLI.write("you> ") }
            guard let line = readLine() else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            if text == "/reset" {
                history = base
                continue
            }
            history.append(.user(text))
            if interactive { CLI.write("assistant> ") }
            var answer = ""
            for try await event in try await RunAnywhere.chatStream(history, options: options) {
                switch event {
                case .token(let piece, let isThinking):
                    if !isThinking { CLI.write(piece) }
                case .completed(let result):
                    answer = result.text
                }
            }
            CLI.write("\n")
            history.append(.assistant(answer))
        }
    }
}
