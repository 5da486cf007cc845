import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("The CLI's vision-language commands", .serialized, .wholeMachine, .tags(.realEngine, .cli))
struct CLIVisionTests {
    @Test("models import --projector makes a VLM pair, and describe answers about a real photograph in JSON")
    func importAndDescribe() throws {
        try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-vlm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let h = ["--home", home.path]
        let llm = try #require(try DefaultModels.llm().localPath)
        let projector = home.appendingPathComponent("mmproj.gguf")
        try VisionTests.writeProjector(to: projector)
        let narrow = home.appendingPathComponent("mmproj-512.gguf")
        try VisionTests.writeProjector(to: narrow, outputWidth: 512)

        let imported = try cli(
            [
                "models", "import", llm.path, "--id", "vlm", "--category", "vlm", "--framework", "llamacpp",
                "--projector", projector.path, "--json",
            ] + h
        )
        try #require(imported.status == 0, "\(imported.err)")
        #expect(try JSONValue(parsing: imported.out)["vision_projector_file"]?.stringValue == "mmproj.gguf")

        let misfit = try cli(
            [
                "models", "import", llm.path, "--id", "misfit", "--category", "vlm", "--framework", "llamacpp",
                "--projector", narrow.path,
            ] + h
        )
        #expect(misfit.status != 0)
        #expect(misfit.err.contains("576"), "\(misfit.err)")
        let listed = try cli(["models", "list", "--json"] + h)
        #expect(!listed.out.contains("misfit"))

        let photos = home.appendingPathComponent("photos")
        let photo = try #require(
            try VisionTests.photographs(into: photos).first { $0.file.lastPathComponent == "rocket.jpg" }
        )
        let describe = try cli(
            [
                "describe", photo.file.path, "--model", "vlm", "--prompt", "What is this?", "--max-tokens", "4",
                "--temperature", "0", "--json",
            ] + h
        )
        try #require(describe.status == 0, "\(describe.err)")
        let result = try JSONValue(parsing: describe.out)
        #expect(result["image_tokens"]?.integerValue == 16)
        #expect((result["prompt_tokens"]?.integerValue ?? 0) > 16)
        #expect((1...4).contains(result["tokens_generated"]?.integerValue ?? 0))
        #expect(result["text"]?.stringValue != nil)

        let notes = home.appendingPathComponent("notes.txt")
        try Data("not an image".utf8).write(to: notes)
        let refused = try cli(["describe", notes.path, "--model", "vlm"] + h)
        #expect(refused.status != 0)
        #expect(refused.err.contains("invalid_image"), "\(refused.err)")

        let registered = try cli(
            [
                "models", "register", "--id", "remote-vlm", "--category", "vlm", "--framework", "llamacpp",
                "--url", "http://127.0.0.1:9/SmolVLM.gguf", "--url", "http://127.0.0.1:9/mmproj-SmolVLM.gguf",
                "--projector", "mmproj-SmolVLM.gguf", "--json",
            ] + h
        )
        try #require(registered.status == 0, "\(registered.err)")
        let entry = try JSONValue(parsing: registered.out)
        #expect(entry["vision_projector_file"]?.stringValue == "mmproj-SmolVLM.gguf")
        #expect(entry["category"]?.stringValue == "vlm")
    }
}
