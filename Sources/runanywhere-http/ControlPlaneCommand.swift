import ArgumentParser
import Logging
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereControlPlane
import RunAnywhereControlPlaneServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere control-plane …`: the reference control plane.
struct ControlPlaneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control-plane",
        abstract: CompanionCommand.controlPlane.abstract,
        subcommands: [Serve.self]
    )

    struct Serve: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the control-plane API (auth, devices, assignments, telemetry) until SIGINT or SIGTERM.",
            discussion: """
                Keeps everything in memory. SDKs reach it when $\(CLI.controlPlaneURLVariable) (the CLI) \
                or their baseURL (apps, with ControlPlaneModule registered) names it, with an API key it accepts.

                The assignments file holds the API's own shape: {"models": [{"model_id", "name", "category", \
                "framework", "required", "files": [{"url", "sha256", "size_bytes", "filename"}]}]}.
                """
        )
        @Option(help: "The address to listen on.") var host = "127.0.0.1"
        @Option(help: "The port (0: any free port).") var port = 8090
        @Option(
            name: .customLong("api-keys-env"),
            help: "The environment variable holding the accepted API keys, comma-separated."
        )
        var apiKeysVariable = "RUNANYWHERE_CONTROL_PLANE_KEYS"
        @Option(help: "A JSON file of the models every device is assigned.") var assignments: String?
        @Option(name: .customLong("access-token-ttl"), help: "Seconds an access token lasts.") var accessTokenTTL = 900
        @Flag(name: .long, help: "Log every request.") var verbose = false

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
            guard accessTokenTTL >= 1 else { throw ValidationError("--access-token-ttl must be at least 1") }
        }

        func execute() async throws {
            let keys = Set(
                (ProcessInfo.processInfo.environment[apiKeysVariable] ?? "")
                    .split(separator: ",").map { $0.trimmedSpaces() }.filter { !$0.isEmpty }
            )
            guard !keys.isEmpty else {
                throw SDKException(
                    .invalidConfiguration,
                    "No API keys: set $\(apiKeysVariable) to the keys to accept, comma-separated"
                )
            }
            let models = try assignments.map { path throws(SDKException) in try Self.readAssignments(path) } ?? []
            var logger = Logger(label: "runanywhere.control-plane")
            logger.logLevel = verbose ? .info : .warning
            let server = try await ControlPlaneServer.start(
                configuration: ControlPlaneServerConfiguration(
                    host: host,
                    port: port,
                    apiKeys: keys,
                    accessTokenLifetime: .seconds(accessTokenTTL),
                    assignments: models
                ),
                logger: logger
            )
            let stop = CLI.terminationSignals()
            CLI.write(
                "Control plane on \(server.baseURL.absoluteString) (API keys: \(keys.count), assigned models: \(models.count))\n"
            )
            let signal = await stop.first { _ in true } ?? "signal"
            let statistics = server.statistics
            CLI.write(
                "Received \(signal): stopping after \(statistics.devices) devices, "
                    + "\(statistics.eventsStored) telemetry events (\(statistics.duplicateEvents) duplicates).\n"
            )
            await server.stop()
        }

        /// The models of an assignments file; a file that is not that JSON names its fault.
        static func readAssignments(_ path: String) throws(SDKException) -> [ModelAssignment] {
            let text = try CLI.readText(path, what: "assignments")
            let file: AssignmentsFile
            do {
                file = try JSONDecoder().decode(AssignmentsFile.self, from: Data(text.utf8))
            } catch {
                throw SDKException(.invalidInput, "\(path) is not an assignments file: \(error)")
            }
            var models: [ModelAssignment] = []
            for model in file.models {
                do throws(SDKException) {
                    models.append(try ModelAssignment(wire: model))
                } catch {
                    throw SDKException(.invalidInput, "\(path): \(error.message)")
                }
            }
            return models
        }

        /// The file's shape: the API's `Assignments` without the etag, which the server makes.
        struct AssignmentsFile: Decodable {
            var models: [Components.Schemas.ModelAssignment]
        }
    }
}
