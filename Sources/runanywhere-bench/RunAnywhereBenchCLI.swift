import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

/// `runanywhere-bench`: the benchmarks, apart from the product so that `runanywhere` carries
/// none of their code, which `runanywhere bench …` runs in its own place (see
/// ``CompanionCommand``). It also runs on its own, under the same command names.
@main
struct RunAnywhereBenchCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract: "The benchmarks of runanywhere: the SDK against the raw engines.",
        version: RunAnywhere.version,
        subcommands: [BenchCommand.self]
    )
}
