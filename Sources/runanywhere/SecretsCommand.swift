import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

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

/// `runanywhere secrets …`: the SDK's secure store.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "Keep API keys and tokens in the SDK's secure store.",
        discussion: """
            Values are sealed with AES-GCM in $RUNANYWHERE_HOME/secure (0700, files 0600) under a key \
            from $\(SecureStore.keyEnvironmentVariable) or a key file made on first use; the Keychain \
            on Apple platforms. `set` reads the value from standard input (or an environment variable), \
            never from the command line, where other users could see it.
            """,
        subcommands: [Set.self, Get.self, Delete.self, List.self]
    )

    struct Set: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store a secret read from standard input."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The secret's name (letters, digits, '.', '_', '-').") var name: String
        @Option(name: .customLong("from-env"), help: "Read the value from this environment variable instead.")
        var fromEnvironment: String?

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            let value: String
            if let fromEnvironment {
                guard let text = ProcessInfo.processInfo.environment[fromEnvironment], !text.isEmpty else {
                    throw SDKException(.invalidInput, "$\(fromEnvironment) is not set")
                }
                value = text
            } else {
                let input = CLI.readStandardInput()
                // A trailing newline is the shell's (echo, a terminal), not the secret's.
                value = String(decoding: input, as: UTF8.self).trimmed(while: \.isNewline)
            }
            guard !value.isEmpty else { throw SDKException(.invalidInput, "The secret's value is empty") }
            try RunAnywhere.secureStore().set(value, for: name)
        }
    }

    struct Get: SDKCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a secret's value.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The secret's name.") var name: String

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            guard let value = try RunAnywhere.secureStore().string(for: name) else {
                CLI.printError("error: no secret named '\(name)'")
                throw ExitCode(1)
            }
            print(value)
        }
    }

    struct Delete: SDKCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a secret.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The secret's name.") var name: String

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            guard try RunAnywhere.secureStore().delete(name) else {
                CLI.printError("error: no secret named '\(name)'")
                throw ExitCode(1)
            }
        }
    }

    struct List: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the secrets' names (never their values)."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            let names = try RunAnywhere.secureStore().names()
            if json { return try CLI.printJSON(names) }
            for name in names { print(name) }
        }
    }
}
