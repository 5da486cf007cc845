import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import RunAnywhereTestingFileServer
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    /// `hf.co/…` references against a local server that answers as the hub does: its model
    /// API (`/api/models/ORG/REPO/revision/REV`) and its `resolve` paths.
    @Suite("Models by reference, from a local stand-in for the Hugging Face hub", .tags(.cli))
    struct ModelReferenceDownloadTests {
        static let repository = "test-org/SmolLM2-GGUF"

        /// Serves SmolLM2 under the hub's paths as `SmolLM2-135M-Instruct-Q8_0.gguf`, with a
        /// listing that also names other quantizations and a projector; `sha256` overrides
        /// the listed checksum. Returns the file's SHA-256.
        @discardableResult
        static func publish(in server: LocalFileServer, sha256: String? = nil) throws -> String {
            let model = try #require(try DefaultModels.llm().localPath)
            let resolve = server.root.appendingPathComponent("\(repository)/resolve/main")
            try FileManager.default.createDirectory(at: resolve, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: model,
                to: resolve.appendingPathComponent("SmolLM2-135M-Instruct-Q8_0.gguf")
            )
            let digest = try sha256sum(model)
            let size = try #require(FileSystem.fileSize(model))
            let listing: JSONValue = [
                "id": .string(repository),
                "sha": "0123456789abcdef0123456789abcdef01234567",
                "siblings": [
                    ["rfilename": ".gitattributes", "size": 1519],
                    ["rfilename": "README.md", "size": 4000],
                    [
                        "rfilename": "SmolLM2-135M-Instruct-Q8_0.gguf", "size": .integer(size),
                        "lfs": ["sha256": .string(sha256 ?? digest), "size": .integer(size), "pointerSize": 135],
                    ],
                    [
                        "rfilename": "SmolLM2-135M-Instruct-Q4_K_M.gguf", "size": 105_000_000,
                        "lfs": ["sha256": .string(String(repeating: "a", count: 64)), "size": 105_000_000],
                    ],
                    ["rfilename": "mmproj-SmolLM2-Q8_0.gguf", "size": 1000],
                ],
            ]
            let api = server.root.appendingPathComponent("api/models/\(repository)/revision")
            try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
            try Data(listing.jsonText().utf8).write(to: api.appendingPathComponent("main"))
            return digest
        }

        /// The SDK pointed at the server as its hub, with `token`.
        static func useHub(_ server: LocalFileServer, token: String?, in sdk: RunAnywhereSDK) throws {
            var configuration = try sdk.downloadConfiguration()
            configuration.huggingFaceEndpoint = server.baseURL
            configuration.huggingFaceToken = token
            try sdk.setDownloadConfiguration(configuration)
        }

        @Test(
            "A reference resolves to the hub's file with its size and checksum, sends the token, downloads and generates"
        )
        func resolveAndDownload() async throws {
            try await withDownloadServer { server, sdk in
                let digest = try Self.publish(in: server)
                server.requireHeader("Authorization", value: "Bearer hf_test")
                try Self.useHub(server, token: "hf_test", in: sdk)
                let model = try await sdk.registerModel(reference: "hf.co/\(Self.repository):Q8_0")
                #expect(model.id == "smollm2-135m-instruct-q8_0")
                let file = try #require(model.artifact?.remoteFiles.first)
                #expect(
                    file.url.absoluteString.hasSuffix(
                        "/\(Self.repository)/resolve/main/SmolLM2-135M-Instruct-Q8_0.gguf"
                    )
                )
                #expect(file.sha256 == digest)
                #expect(file.sizeBytes == FileSystem.fileSize(try #require(try DefaultModels.llm().localPath)))
                // The same reference again is the same model.
                #expect(try await sdk.registerModel(reference: "hf.co/\(Self.repository):Q8_0") == model)
                let last = try #require(await collect(try sdk.downloadModel(model.id)).last)
                #expect(last.stage == .completed, "\(last.error.map { "\($0)" } ?? "")")
                #expect(server.requests.allSatisfy { $0.status != 401 }, "every request carried the token")
                try await sdk.loadModel(model.id)
                let reply = try await sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 3, temperature: 0))
                #expect(reply.generatedTokens > 0)
                // The default quantization names another file; an explicit path names this one.
                let byDefault = try await sdk.registerModel(reference: "hf.co/\(Self.repository)")
                #expect(byDefault.artifact?.remoteFiles.first?.fileName == "SmolLM2-135M-Instruct-Q4_K_M.gguf")
                let byPath = try await sdk.registerModel(
                    reference: "hf.co/\(Self.repository)/SmolLM2-135M-Instruct-Q8_0.gguf",
                    id: "by-path"
                )
                #expect(byPath.artifact?.remoteFiles.first?.url == file.url)
            }
        }

        @Test("Refusals are typed: no token for a gated hub, an unknown file or quantization, a wrong listed checksum")
        func refusals() async throws {
            try await withDownloadServer { server, sdk in
                try Self.publish(in: server, sha256: String(repeating: "0", count: 64))
                server.requireHeader("Authorization", value: "Bearer hf_test")
                try Self.useHub(server, token: nil, in: sdk)
                let gated = await expectCode(.downloadFailed) {
                    try await sdk.registerModel(reference: "hf.co/\(Self.repository):Q8_0")
                }
                #expect(gated?.recoverySuggestion?.contains("HF_TOKEN") == true)
                try Self.useHub(server, token: "hf_test", in: sdk)
                let missing = await expectCode(.modelNotFound) {
                    try await sdk.registerModel(reference: "hf.co/\(Self.repository):IQ2_XS")
                }
                #expect(missing?.recoverySuggestion?.contains("SmolLM2-135M-Instruct-Q8_0.gguf") == true)
                await expectCode(.modelNotFound) {
                    try await sdk.registerModel(reference: "hf.co/\(Self.repository)/nothing.gguf")
                }
                await expectCode(.modelNotFound) { try await sdk.registerModel(reference: "hf.co/test-org/absent") }
                await expectCode(.invalidInput) { try await sdk.registerModel(reference: "hf.co/../etc/passwd") }
                // The listing's checksum is the one the download is checked against.
                let model = try await sdk.registerModel(reference: "hf.co/\(Self.repository):Q8_0")
                let last = try #require(await collect(try sdk.downloadModel(model.id)).last)
                #expect(last.error?.code == .checksumMismatch)
                #expect(try !sdk.model(model.id).isDownloaded)
            }
        }

        @Test("runanywhere models pull registers and downloads a reference with HF_ENDPOINT and HF_TOKEN")
        func pullCommand() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("ra-hub-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let server = try await LocalFileServer.start(root: root)
            defer { Task { await server.stop() } }
            try Self.publish(in: server)
            server.requireHeader("Authorization", value: "Bearer hf_cli")
            let home = root.appendingPathComponent("home")
            let environment = ["HF_ENDPOINT": server.baseURL.absoluteString, "HF_TOKEN": "hf_cli"]
            let reference = "hf.co/\(Self.repository):Q8_0"
            let pulled = try cli(["models", "pull", reference, "--home", home.path], environment: environment)
            #expect(pulled.status == 0, "\(pulled.err)")
            #expect(pulled.out.contains("smollm2-135m-instruct-q8_0"), "\(pulled.out)")
            let again = try cli(["models", "pull", reference, "--home", home.path], environment: environment)
            #expect(again.status == 0 && again.out.contains("Already downloaded"), "\(again.out) \(again.err)")
            let listed = try cli(["models", "list", "--json", "--home", home.path])
            #expect(listed.out.contains("smollm2-135m-instruct-q8_0"))
            let registered = try cli(
                [
                    "models", "register", "--id", "by-register", "--url", reference, "--category", "llm",
                    "--framework", "llamacpp", "--home", home.path,
                ],
                environment: environment
            )
            #expect(registered.status == 0, "\(registered.err)")
            let refused = try cli(
                ["models", "pull", reference, "--home", home.path],
                environment: ["HF_ENDPOINT": server.baseURL.absoluteString, "HF_TOKEN": ""]
            )
            #expect(refused.status != 0 && refused.err.contains("HF_TOKEN"), "\(refused.err)")
            await server.stop()
        }
    }
}
