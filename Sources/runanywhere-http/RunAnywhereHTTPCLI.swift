import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereControlPlane
import RunAnywhereRemote

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

    /// Registers the remote engines and, when one is named, the control plane's client, which
    /// this executable links (`runanywhere` opens their plugins instead: the plugins' SwiftNIO
    /// would be a second one here), then runs the command.
    static func main() async {
        RemoteModule.register()
        if CLI.controlPlaneURL != nil {
            do {
                RunAnywhere.register(try ControlPlaneModule(environment: ProcessInfo.processInfo.environment))
            } catch {
                CLI.printError("error: \(error)")
                Self.exit(withError: ExitCode.failure)
            }
        }
        await parseAndRun()
    }
}
