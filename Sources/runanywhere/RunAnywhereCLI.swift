import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

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
            VoiceCommand.self, DescribeCommand.self, ChatTemplateCommand.self,
            EmbedCommand.self,
            RAGCommand.self, StorageCommand.self, SecretsCommand.self, ServeListing.self, BenchListing.self,
            ControlPlaneListing.self, TelemetryCommand.self, RunCommand.self, PluginsCommand.self,
        ]
    )

    /// Hands the companions' commands (``CompanionCommand``) to their executables before
    /// parsing anything, so that their options and their help are its own; parses the rest.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let companion = CompanionCommand.named(by: arguments) {
            companion.handOver(arguments)
        }
        await parseAndRun(arguments)
    }
}
