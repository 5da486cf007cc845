import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere-http`: the commands of `runanywhere` that need the HTTP stack (see
/// ``CompanionCommand``), which `runanywhere` runs in its own place. It also runs on its own,
/// under the same command names.
@main
struct RunAnywhereHTTPCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runanywhere",
        abstract: "The commands of runanywhere that serve HTTP: serve and control-plane.",
        version: RunAnywhere.version,
        subcommands: [ServeCommand.self, ControlPlaneCommand.self]
    )
}
