import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's secrets", .tags(.cli))
    struct CLISecretsTests {
        @Test("Processes setting secrets at once on a fresh home agree on one key, and get, list and delete work")
        func concurrentProcesses() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-secrets-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let h = ["--home", home.path]
            // Values reach the children through their environment, never a command line.
            let values = (0..<6).map { "sk-value-\($0)-\(UUID().uuidString)" }
            let runs = try values.map { value in
                try startCLI(
                    ["secrets", "set", "shared", "--from-env", "SECRET_VALUE"] + h,
                    environment: ["SECRET_VALUE": value]
                )
            }
            for (process, _, err) in runs {
                let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(errors)")
            }
            let get = try cli(["secrets", "get", "shared"] + h)
            #expect(get.status == 0, "\(get.err)")
            #expect(values.contains(get.out.trimmingCharacters(in: .newlines)))
            let files = try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("secure").path)
            #expect(files.sorted() == [".key", "shared.secret"])

            // From standard input, without the shell's newline.
            let input = Pipe()
            let (process, _, _) = try startCLI(["secrets", "set", "typed"] + h, input: input)
            input.fileHandleForWriting.write(Data("sk-typed\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(try cli(["secrets", "get", "typed"] + h).out == "sk-typed\n")
            let list = try cli(["secrets", "list", "--json"] + h)
            #expect(try JSONValue(parsing: list.out) == .array([.string("shared"), .string("typed")]))

            // A damaged file is reported, not printed.
            let typed = home.appendingPathComponent("secure/typed.secret")
            var sealed = try Data(contentsOf: typed)
            sealed[sealed.count - 1] ^= 0xFF
            try sealed.write(to: typed)
            let damaged = try cli(["secrets", "get", "typed"] + h)
            #expect(damaged.status == 1)
            #expect(damaged.err.contains("secret_tampered"), "\(damaged.err)")
            #expect(try cli(["secrets", "delete", "typed"] + h).status == 0)
            #expect(try cli(["secrets", "get", "typed"] + h).status == 1)
        }

        /// Runs `script` in a session of its own with GNOME Keyring unlocked over `keyrings`.
        private func inKeyringSession(
            _ script: String,
            keyrings: URL,
            environment: [String: String]
        ) throws -> (status: Int32, out: String, err: String) {
            let process = Process()
            // With every signal at its default: dbus-run-session waits for its child through
            // SIGCHLD, which a test runner may have set to be ignored.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "--default-signal", "/usr/bin/dbus-run-session", "--", "/bin/sh", "-c",
                "printf 'test-password' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1\n"
                    + script,
            ]
            var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            merged["XDG_DATA_HOME"] = keyrings.path
            merged.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
            process.environment = merged
            // Files, not pipes: the session's daemons may outlive it for a moment and would
            // hold a pipe open.
            let outFile = keyrings.appendingPathComponent("out-\(UUID().uuidString)")
            let errFile = keyrings.appendingPathComponent("err-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
            defer {
                try? FileManager.default.removeItem(at: outFile)
                try? FileManager.default.removeItem(at: errFile)
            }
            process.standardOutput = try FileHandle(forWritingTo: outFile)
            process.standardError = try FileHandle(forWritingTo: errFile)
            try process.run()
            process.waitUntilExit()
            return (
                process.terminationStatus,
                String(decoding: try Data(contentsOf: outFile), as: UTF8.self),
                String(decoding: try Data(contentsOf: errFile), as: UTF8.self)
            )
        }

        @Test("With a Secret Service in the session the store's key lives there, not in a file, and only there")
        func secretService() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            for tool in ["/usr/bin/dbus-run-session", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"] {
                try #require(FileManager.default.isExecutableFile(atPath: tool), "scripts/bootstrap installs \(tool)")
            }
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("ra-keyring-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let home = root.appendingPathComponent("home")
            let keyrings = root.appendingPathComponent("keyrings")
            try FileManager.default.createDirectory(at: keyrings, withIntermediateDirectories: true)
            let secure = home.appendingPathComponent("secure").path
            let environment = ["CLI": cliBinary.path, "RA_HOME": home.path, "SECRET_VALUE": "sk-in-keyring-123"]
            let first = try inKeyringSession(
                """
                "$CLI" secrets set token --from-env SECRET_VALUE --home "$RA_HOME" || exit 10
                "$CLI" secrets get token --home "$RA_HOME" || exit 11
                secret-tool lookup application runanywhere store "$RA_HOME/secure" || exit 12
                """,
                keyrings: keyrings,
                environment: environment
            )
            #expect(first.status == 0, "\(first.err)")
            let lines = first.out.split(separator: "\n").map(String.init)
            #expect(lines.first == "sk-in-keyring-123")
            // The key, base64 of 32 bytes, is the keyring's item; no key file was written.
            #expect(lines.count == 2 && Data(base64Encoded: lines[1])?.count == 32, "\(first.out)")
            let files = try FileManager.default.contentsOfDirectory(atPath: secure)
            #expect(!files.contains(".key"), "\(files)")
            #expect(files.contains("token.secret"))

            // A process with no session bus never makes a key file beside them.
            let headless = try cli(
                ["secrets", "get", "token", "--home", home.path],
                environment: ["DBUS_SESSION_BUS_ADDRESS": ""]
            )
            #expect(headless.status != 0)
            #expect(headless.err.contains("invalid_configuration"), "\(headless.err)")
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: secure)).contains(".key"))

            // A later session over the same keyring finds the key again.
            let again = try inKeyringSession(
                #""$CLI" secrets get token --home "$RA_HOME""#,
                keyrings: keyrings,
                environment: environment
            )
            #expect(again.status == 0, "\(again.err)")
            #expect(again.out.trimmingCharacters(in: .newlines) == "sk-in-keyring-123")

            // Another keyring does not hold it: the sealed file cannot be opened without it.
            let other = root.appendingPathComponent("other-keyrings")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            let stranger = try inKeyringSession(
                #""$CLI" secrets get token --home "$RA_HOME""#,
                keyrings: other,
                environment: environment
            )
            #expect(stranger.status != 0)
            #expect(stranger.err.contains("secret_key_mismatch"), "\(stranger.err)")
        }
    }
}
