import ArgumentParser
import RunAnywhere

/// `runanywhere`: the SDK from the command line.
@main
struct RunAnywhereCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract: "On-device AI from the command line: models, generation, chat, speech and benchmarks.",
        version: RunAnywhere.version,
        subcommands: [
            DoctorCommand.self, ModelsCommand.self, GenerateCommand.self, ChatCommand.self,
            TranscribeCommand.self, SpeakCommand.self, VADCommand.self, VoiceCommand.self, StorageCommand.self,
            BenchCommand.self,
        ]
    )
}
