import ArgumentParser
import RunAnywhere

/// `runanywhere`: the SDK from the command line.
@main
struct RunAnywhereCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract:
            "On-device AI from the command line: models, generation, chat, speech, embeddings, RAG and benchmarks.",
        version: RunAnywhere.version,
        subcommands: [
            DoctorCommand.self, ModelsCommand.self, GenerateCommand.self, ChatCommand.self, LoRACommand.self,
            TranscribeCommand.self, SpeakCommand.self, VADCommand.self, WakeWordCommand.self, DiarizeCommand.self,
            VoiceCommand.self, DescribeCommand.self,
            EmbedCommand.self,
            RAGCommand.self, StorageCommand.self, SecretsCommand.self, ServeCommand.self, BenchCommand.self,
            ControlPlaneCommand.self, TelemetryCommand.self, RunCommand.self, PluginsCommand.self,
        ]
    )
}
