import Foundation
import RealEngineTestSupport
import RunAnywhere
import RunAnywhereTesting
import RunAnywhereTestingFileServer
import Testing

extension RealEngineTests {
    @Suite("The CLI's model download and storage commands", .tags(.cli))
    struct CLIDownloadTests {
        @Test("models register, download --json, storage info --json and models delete work end to end")
        func registerDownloadInspectDelete() async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: cliBinary.path),
                "build the CLI first (make test does)"
            )
            let vad = try #require(try DefaultModels.model(DefaultModels.vadId).localPath)
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("ra-cli-\(UUID().uuidString)")
            let root = work.appendingPathComponent("serve")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            try FileManager.default.copyItem(at: vad, to: root.appendingPathComponent("vad.onnx"))
            let server = try await LocalFileServer.start(root: root)
            defer { Task { await server.stop() } }
            let home = ["--home", work.appendingPathComponent("home").path]

            let register = try cli(
                [
                    "models", "register", "--id", "cli-vad", "--name", "CLI VAD", "--url",
                    server.url(for: "vad.onnx").absoluteString, "--category", "vad", "--framework", "sherpa",
                    "--json",
                ] + home
            )
            #expect(register.status == 0, "\(register.err)")
            #expect(try json(Substring(register.out.trimmingCharacters(in: .newlines)))["id"] as? String == "cli-vad")

            let download = try cli(["models", "download", "cli-vad", "--json"] + home)
            #expect(download.status == 0, "\(download.err)")
            let lines = try download.out.split(separator: "\n").map(json)
            #expect(lines.contains { $0["stage"] as? String == "downloading" })
            let last = try #require(lines.last)
            #expect(last["stage"] as? String == "completed")
            let path = try #require(last["local_path"] as? String)
            #expect(FileManager.default.contentsEqual(atPath: path, andPath: vad.path))

            let info = try cli(["storage", "info", "--json"] + home)
            #expect(info.status == 0, "\(info.err)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(info.out.utf8)) as? [String: Any])
            let models = try #require(report["models"] as? [[String: Any]])
            #expect(models.map { $0["id"] as? String } == ["cli-vad"])
            #expect((models.first?["size_bytes"] as? Int ?? 0) >= 2_000_000)
            #expect((report["device_free_bytes"] as? Int ?? 0) > 0)

            let delete = try cli(["models", "delete", "cli-vad"] + home)
            #expect(delete.status == 0, "\(delete.err)")
            #expect(!FileManager.default.fileExists(atPath: path))
            let list = try cli(["models", "list"] + home)
            #expect(list.out.contains("cli-vad") && list.out.contains("downloadable"))

            let missing = try cli(["models", "download", "nope"] + home)
            #expect(missing.status == 1)
            #expect(missing.err.contains("model_not_found"))
            let bad = try cli(
                [
                    "models", "register", "--id", "x", "--url", "ftp://host/m", "--category", "vad",
                    "--framework", "sherpa",
                ] + home
            )
            #expect(bad.status == 1 && bad.err.contains("invalid_input"))
            // An unknown framework is a usage error, as when the ids were a closed enum.
            let unknown = try cli(
                [
                    "models", "register", "--id", "x", "--url", "https://host/m", "--category", "vad",
                    "--framework", "../evil",
                ] + home
            )
            #expect(unknown.status == 64, "\(unknown.err)")
            #expect(unknown.err.contains("llamacpp") && unknown.err.contains("sherpa"), "the error lists the choices")
            await server.stop()
        }
    }
}
