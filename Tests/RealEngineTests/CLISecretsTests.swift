import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's secrets")
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
    }
}
