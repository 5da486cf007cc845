import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("The CLI's LoRA adapters", .serialized, .wholeMachine, .tags(.realEngine, .cli))
struct CLILoRATests {
    @Test("generate --lora takes a file or a registered id; lora register, list and check work on a temporary home")
    func loraCommands() throws {
        try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-lora-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let h = ["--home", home.path]
        let llm = try #require(try DefaultModels.llm().localPath)
        let imported = try cli(
            [
                "models", "import", llm.path, "--id", DefaultModels.llmId, "--category", "llm", "--framework",
                "llamacpp",
            ]
                + h
        )
        try #require(imported.status == 0, "\(imported.err)")
        let adapter = home.appendingPathComponent("sea.gguf")
        try LoRATests.write(LoRATests.Weights(rank: 8, seed: 5).scalingB(by: 2), to: adapter)
        let gpt2 = home.appendingPathComponent("gpt2.gguf")
        try LoRATests.write(LoRATests.Weights(rank: 8, seed: 5), to: gpt2, architecture: "gpt2")

        let generate = [
            "generate", "--model", DefaultModels.llmId, "--prompt", "Write one sentence about the sea.",
            "--temperature", "0", "--repeat-penalty", "1", "--max-tokens", "32", "--json",
        ]
        func text(_ extra: [String]) throws -> String {
            let run = try cli(generate + extra + h)
            try #require(run.status == 0, "\(run.err)")
            return try #require(try JSONValue(parsing: run.out)["text"]?.stringValue)
        }
        let base = try text([])
        // A file at scale 0 changes nothing, and leaves no entry behind.
        #expect(try text(["--lora", "\(adapter.path):0"]) == base)
        let fromFile = try text(["--lora", "\(adapter.path):4"])
        #expect(fromFile != base)
        let empty = try cli(["lora", "list", "--json"] + h)
        #expect(try JSONValue(parsing: empty.out) == .array([]), "\(empty.out)")
        #expect(FileManager.default.fileExists(atPath: adapter.path))

        let registered = try cli(
            [
                "lora", "register", "--id", "sea", "--file", adapter.path, "--base-model", DefaultModels.llmId,
                "--json",
            ]
                + h
        )
        try #require(registered.status == 0, "\(registered.err)")
        #expect(try JSONValue(parsing: registered.out)["rank"] == .integer(8))
        #expect(try text(["--lora", "sea:4"]) == fromFile)
        let listed = try cli(["lora", "list", "--model", DefaultModels.llmId, "--json"] + h)
        #expect(try JSONValue(parsing: listed.out).arrayValue?.count == 1, "\(listed.out)")
        let check = try cli(["lora", "check", "sea", "--model", DefaultModels.llmId, "--json"] + h)
        #expect(check.status == 0)
        #expect(try JSONValue(parsing: check.out)["is_compatible"] == .bool(true), "\(check.out)")

        try #require(try cli(["lora", "register", "--id", "other", "--file", gpt2.path] + h).status == 0)
        let refused = try cli(["lora", "check", "other", "--model", DefaultModels.llmId] + h)
        #expect(refused.status == 1)
        #expect(refused.out.contains("gpt2"), "\(refused.out)")
        let bad = try cli(generate + ["--lora", "other"] + h)
        #expect(bad.status != 0)
        #expect(bad.err.contains("incompatible_lora_adapter"), "\(bad.err)")
        let missing = try cli(generate + ["--lora", "no-such-adapter"] + h)
        #expect(missing.status != 0)
        #expect(missing.err.contains("no-such-adapter"), "\(missing.err)")
    }
}
