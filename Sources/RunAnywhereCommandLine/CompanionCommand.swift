import ArgumentParser
@_spi(Backend) import RunAnywhere

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

/// A command of one of the CLI's companion executables, which `runanywhere` runs in its own
/// place (`execv`, same process id, same arguments).
///
/// Why companions: `runanywhere-http`'s commands link the HTTP stack (SwiftNIO, Hummingbird,
/// async-http-client, the OpenAPI runtime, MultipartKit) and with it full Foundation; in
/// `runanywhere` every other command would map and relocate all of it at every start, for
/// nothing (`runanywhere bench startup` measures what a start costs). `runanywhere-bench` holds
/// the benchmarks, their raw baselines' drivers and the simulated rooms of `RunAnywhereTesting`,
/// which are no part of the product. `runanywhere` lists them in its help, so nobody needs to
/// know which file runs them, and hands over before parsing anything, so their options and
/// help are the companion's own.
package enum CompanionCommand: CaseIterable, Sendable {
    case serve
    case controlPlane
    case bench

    /// The words that name it on the command line, e.g. `["control-plane"]`.
    package var path: [String] {
        switch self {
        case .serve: ["serve"]
        case .controlPlane: ["control-plane"]
        case .bench: ["bench"]
        }
    }

    /// Its one-line description, for both executables' help.
    package var abstract: String {
        switch self {
        case .serve: "Serve the registered models over an OpenAI-compatible HTTP API."
        case .controlPlane: "Run the reference RunAnywhere control plane."
        case .bench: "Benchmarks: the SDK against the raw engine, in one run."
        }
    }

    /// The name of the executable that runs it.
    package var executableName: String {
        switch self {
        case .serve, .controlPlane: "runanywhere-http"
        case .bench: "runanywhere-bench"
        }
    }

    /// The command line's name for its part in the help: the last word of its path.
    package var configuration: CommandConfiguration {
        CommandConfiguration(commandName: path.last, abstract: abstract)
    }

    /// The companion's file: next to this executable.
    package var executable: URL {
        CLI.executable.deletingLastPathComponent().appendingPathComponent(executableName)
    }

    /// The command `arguments` (without the program's name) start with, if a companion's;
    /// `help` before it asks for its help, which the companion gives too.
    package static func named(by arguments: [String]) -> CompanionCommand? {
        let words = arguments.first == "help" ? Array(arguments.dropFirst()) : arguments
        return allCases.first { Array(words.prefix($0.path.count)) == $0.path }
    }

    /// Runs the companion with `arguments` (without the program's name) in this process's
    /// place; when it cannot (the companion is not there, or cannot be run), prints why and
    /// exits with status 1.
    package func handOver(_ arguments: [String]) -> Never {
        let program = executable.path
        let error: SDKException
        if FileManager.default.isExecutableFile(atPath: program) {
            do throws(SDKException) {
                let trusted = try TrustedCodeFile.check(program, what: "The companion program")
                let argv = ([trusted] + arguments).map { strdup($0) } + [nil]
                execv(trusted, argv)
                error = SDKException(
                    .fileSystemError,
                    "Cannot run \(program): \(POSIXError(errno: errno).readableDescription)"
                )
            } catch let refusal {
                error = refusal
            }
        } else {
            error = SDKException(
                .fileSystemError,
                "\(arguments.prefix(2).joined(separator: " ")) runs in \(program), which is missing",
                recovery: "Build it: swift build --product \(executableName) (make build does)"
            )
        }
        CLI.printError("error: \(error)")
        exit(1)
    }
}

/// A command that lives in a companion executable, in `runanywhere`'s help: `runanywhere` hands
/// over to the companion before parsing, so this runs only if something calls it directly.
package protocol CompanionCommandListing: ParsableCommand {
    /// The command it stands for.
    static var command: CompanionCommand { get }
}

extension CompanionCommandListing {
    package static var configuration: CommandConfiguration { command.configuration }

    package func run() throws {
        Self.command.handOver(Array(CommandLine.arguments.dropFirst()))
    }
}

extension AsyncParsableCommand {
    /// Parses `arguments` (by default this process's) as this root command's, runs the command
    /// they name as swift-argument-parser's own `main()` does, and exits: for the executables'
    /// `main()`s, which first do what must precede parsing.
    ///
    /// It ends the process itself: returning from a `main()` of the type's own did not, once a
    /// model had been loaded (the async entry point's `exit(0)` never ran).
    package static func parseAndRun(_ arguments: [String]? = nil) async -> Never {
        do {
            let command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
        exit()
    }
}
