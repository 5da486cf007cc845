import Foundation
import RealEngineTestSupport
import RunAnywhereTestSupport
import RunAnywhereTesting
import RunAnywhereTestingFileServer
import Testing

@_spi(Backend) @testable import RunAnywhere

/// Vision-language input on llama.cpp's libmtmd, with SmolLM2 and vision projectors the
/// tests write with ``GGUFWriter`` (no vision-language weights are available offline
/// here): random weights, so the text means nothing, but every step is the real one:
/// decoding real photographs, the projector's preprocessing and encoder, image tokens in
/// the prompt, generation.
@Suite("Vision-language models on the real engine", .serialized, .wholeMachine, .tags(.realEngine))
struct VisionTests {
    /// Writes a LLaVA-1.5-style projector (`mlp`): a one-block CLIP encoder taking
    /// `imageSize`² pixels in `patchSize`² patches, then a two-layer MLP out to
    /// `outputWidth` (SmolLM2's embeddings are 576 wide). It makes (imageSize/patchSize)²
    /// image tokens.
    static func writeProjector(to url: URL, imageSize: Int = 64, patchSize: Int = 16, outputWidth: Int = 576) throws {
        let width = 32
        let hidden = 64
        var noise = LoRATests.Noise(state: UInt64(imageSize * 131 + outputWidth))
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("clip"))
        writer.set("clip.projector_type", .string("mlp"))
        writer.set("clip.has_vision_encoder", .bool(true))
        writer.set("clip.use_gelu", .bool(true))
        writer.set("clip.vision.image_size", .uint32(UInt32(imageSize)))
        writer.set("clip.vision.patch_size", .uint32(UInt32(patchSize)))
        writer.set("clip.vision.embedding_length", .uint32(UInt32(width)))
        writer.set("clip.vision.feed_forward_length", .uint32(UInt32(hidden)))
        writer.set("clip.vision.block_count", .uint32(1))
        writer.set("clip.vision.attention.head_count", .uint32(4))
        writer.set("clip.vision.attention.layer_norm_epsilon", .float32(1e-5))
        writer.set("clip.vision.projection_dim", .uint32(UInt32(outputWidth)))
        writer.set(
            "clip.vision.image_mean",
            .array(elementType: .float32, [.float32(0.48), .float32(0.46), .float32(0.41)])
        )
        writer.set(
            "clip.vision.image_std",
            .array(elementType: .float32, [.float32(0.27), .float32(0.26), .float32(0.28)])
        )
        func random(_ name: String, _ dimensions: [Int], scale: Float = 0.02) throws {
            try writer.addTensor(
                name,
                dimensions: dimensions,
                values: noise.values(dimensions.reduce(1, *), scale: scale)
            )
        }
        func ones(_ name: String, _ count: Int) throws {
            try writer.addTensor(name, dimensions: [count], values: [Float](repeating: 1, count: count))
        }
        let positions = (imageSize / patchSize) * (imageSize / patchSize) + 1
        try random("v.patch_embd.weight", [patchSize, patchSize, 3, width])
        try random("v.class_embd", [width])
        try random("v.position_embd.weight", [width, positions])
        try ones("v.pre_ln.weight", width)
        try random("v.pre_ln.bias", [width])
        for name in ["attn_q", "attn_k", "attn_v", "attn_out"] {
            try random("v.blk.0.\(name).weight", [width, width])
            try random("v.blk.0.\(name).bias", [width])
        }
        for name in ["ln1", "ln2"] {
            try ones("v.blk.0.\(name).weight", width)
            try random("v.blk.0.\(name).bias", [width])
        }
        try random("v.blk.0.ffn_up.weight", [width, hidden])
        try random("v.blk.0.ffn_up.bias", [hidden])
        try random("v.blk.0.ffn_down.weight", [hidden, width])
        try random("v.blk.0.ffn_down.bias", [width])
        // Large output weights, so the image tokens weigh on what the model writes.
        try random("mm.0.weight", [width, hidden], scale: 0.5)
        try random("mm.0.bias", [hidden])
        try random("mm.2.weight", [hidden, outputWidth], scale: 0.5)
        try random("mm.2.bias", [outputWidth])
        try writer.write(to: url)
    }

    /// A folder for this test's files, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ra-vlm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Imports SmolLM2 with a projector written to `dir` as the vision-language model `id`.
    static func importPair(
        _ sdk: RunAnywhereSDK,
        _ id: String,
        dir: URL,
        imageSize: Int = 64,
        patchSize: Int = 16
    ) throws {
        let projector = dir.appendingPathComponent("mmproj-\(id).gguf")
        try writeProjector(to: projector, imageSize: imageSize, patchSize: patchSize)
        try sdk.importVLMModel(
            from: try #require(try DefaultModels.llm().localPath),
            projector: projector,
            id: id,
            framework: .llamaCpp
        )
    }

    /// A `width × height` RGB gradient, different for each `seed`.
    static func pixels(width: Int, height: Int, seed: Int = 0) -> VLMImage {
        var data = Data(count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                data[index] = UInt8((x * 255 / max(width - 1, 1) + seed * 85) % 256)
                data[index + 1] = UInt8((y * 255 / max(height - 1, 1) + seed * 40) % 256)
                data[index + 2] = UInt8((x + y + seed * 17) % 256)
            }
        }
        return .fromRawRGB(data, width: width, height: height)
    }

    /// The real photographs and their re-encodings (scripts/image_variants.py), with the
    /// size Pillow reads for each.
    static func photographs(into dir: URL) throws -> [(file: URL, format: String, width: Int, height: Int)] {
        guard let set = ProcessInfo.processInfo.environment["RUNANYWHERE_IMAGE_SET"],
            FileManager.default.fileExists(atPath: set)
        else {
            Issue.record("RUNANYWHERE_IMAGE_SET is not installed: run `make test` (it runs scripts/bootstrap)")
            throw SDKException(.invalidConfiguration, "no image set")
        }
        let manifest = try runPythonScript("image_variants.py", ["--input", set, "--output", dir.path])
        let entries = try #require(try JSONSerialization.jsonObject(with: manifest) as? [[String: Any]])
        return try entries.map { entry in
            (
                dir.appendingPathComponent(try #require(entry["file"] as? String)),
                try #require(entry["format"] as? String),
                try #require(entry["width"] as? Int),
                try #require(entry["height"] as? Int)
            )
        }
    }

    @Test("An image runs through the projector into the prompt and changes what the model writes")
    func imageReachesTheModel() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withSDK { sdk in
            try Self.importPair(sdk, "smolvlm-test", dir: dir)
            try await sdk.loadVLMModel("smolvlm-test")
            #expect(await sdk.isVLMModelLoaded)
            #expect(await sdk.currentLLMModel == nil, "the VLM is held apart from the language model")
            var options = VLMGenerationOptions.defaults(prompt: "What is in this picture?")
            options.generation = LLMGenerationOptions(maxTokens: 12, temperature: 0, repetitionPenalty: 1)
            options.generation.ignoreEndOfSequence = true
            let first = try await sdk.processImage(Self.pixels(width: 80, height: 60, seed: 0), options: options)
            #expect(first.imageTokens == 16)
            #expect(first.generatedTokens == 12)
            // The prompt is the chat template around the marker and the question, plus 16 image tokens.
            #expect(first.promptTokens > 16 + 5)
            let again = try await sdk.processImage(Self.pixels(width: 80, height: 60, seed: 0), options: options)
            #expect(again.text == first.text, "greedy decoding of the same image is repeatable")
            let other = try await sdk.processImage(Self.pixels(width: 80, height: 60, seed: 2), options: options)
            #expect(other.text != first.text, "another image makes the model write something else")

            // Streaming gives the same text, piece by piece.
            var streamed = ""
            var completed: VLMResult?
            for try await event in try await sdk.generateStream(
                options.prompt,
                images: [Self.pixels(width: 80, height: 60)],
                options: options.generation
            ) {
                switch event {
                case .token(let text, _): streamed += text
                case .completed(let result): completed = result
                }
            }
            #expect(streamed == first.text)
            #expect(completed?.imageTokens == 16)

            // A conversation with images goes to the VLM; chat() and generate(_:images:) agree.
            let chat = try await sdk.chat(
                [.user("What is in this picture?", images: [Self.pixels(width: 80, height: 60)])],
                options: options.generation
            )
            #expect(chat.text == first.text)
            let generated = try await sdk.generate(
                "What is in this picture?",
                images: [Self.pixels(width: 80, height: 60)],
                options: options.generation
            )
            #expect(generated.text == first.text)
            // Two images take two sets of tokens.
            let two = try await sdk.generate(
                "Compare them.",
                images: [Self.pixels(width: 80, height: 60), Self.pixels(width: 30, height: 90, seed: 1)],
                options: options.generation
            )
            #expect(two.imageTokens == 32)
        }
    }

    @Test("Image token counts follow the projector's geometry, whatever the image's size")
    func tokenCountsFollowTheProjector() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withSDK { sdk in
            let options = VLMGenerationOptions(
                prompt: "Describe.",
                generation: LLMGenerationOptions(maxTokens: 1, temperature: 0)
            )
            for (size, patch) in [(64, 16), (96, 16), (224, 14)] {
                let id = "vlm-\(size)-\(patch)"
                try Self.importPair(sdk, id, dir: dir, imageSize: size, patchSize: patch)
                try await sdk.loadVLMModel(id)
                for (width, height) in [(80, 60), (17, 31), (300, 200), (1, 1)] {
                    let result = try await sdk.processImage(
                        Self.pixels(width: width, height: height),
                        options: options
                    )
                    let expected = (size / patch) * (size / patch)
                    #expect(result.imageTokens == expected, "\(id) on \(width)×\(height)")
                }
            }
        }
    }

    @Test("Real photographs decode, as PNG and JPEG of every kind other encoders write")
    func realPhotographs() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = try Self.photographs(into: dir)
        try await withSDK { sdk in
            try Self.importPair(sdk, "smolvlm-test", dir: dir)
            try await sdk.loadVLMModel("smolvlm-test")
            let options = VLMGenerationOptions(
                prompt: "Describe the photo.",
                generation: LLMGenerationOptions(maxTokens: 2, temperature: 0)
            )
            for photo in photos where photo.file.lastPathComponent != "bad-zlib.png" {
                // The header reader agrees with Pillow on every file.
                let header = try VLMImage.fromFile(photo.file).prepared().header
                #expect(header.format?.rawValue == photo.format, "\(photo.file.lastPathComponent)")
                #expect(
                    header.width == photo.width && header.height == photo.height,
                    "\(photo.file.lastPathComponent)"
                )
                let result = try await sdk.processImage(.fromFile(photo.file), options: options)
                #expect(result.imageTokens == 16, "\(photo.file.lastPathComponent)")
                // The same photo as bytes and as base64 goes the same way.
                let bytes = try Data(contentsOf: photo.file)
                let encoded = try await sdk.processImage(.fromEncoded(bytes), options: options)
                #expect(encoded.text == result.text)
                let base64 = try await sdk.processImage(
                    try VLMImage(base64: bytes.base64EncodedString()),
                    options: options
                )
                #expect(base64.text == result.text)
            }
        }
    }

    @Test("Damaged, cut-short, huge and foreign images are typed errors, and the model stays usable")
    func badImages() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = try Self.photographs(into: dir)
        let png = try Data(
            contentsOf: try #require(photos.first { $0.file.lastPathComponent == "astronaut.png" }).file
        )
        let jpeg = try Data(
            contentsOf: try #require(photos.first { $0.file.lastPathComponent == "rocket.jpg" }).file
        )
        try await withSDK { sdk in
            try Self.importPair(sdk, "smolvlm-test", dir: dir)
            try await sdk.loadVLMModel("smolvlm-test")
            let options = VLMGenerationOptions(generation: LLMGenerationOptions(maxTokens: 2, temperature: 0))
            var damaged = png
            damaged[png.count / 2] ^= 0xFF
            let text = dir.appendingPathComponent("notes.txt")
            try Data("not an image".utf8).write(to: text)
            let bad: [(String, VLMImage)] = [
                ("PNG cut in half", .fromEncoded(png.prefix(png.count / 2))),
                ("JPEG cut in half", .fromEncoded(jpeg.prefix(jpeg.count / 2))),
                ("JPEG without its last byte", .fromEncoded(jpeg.dropLast())),
                ("PNG with a changed byte", .fromEncoded(damaged)),
                ("PNG whose compressed data is noise", .fromFile(dir.appendingPathComponent("bad-zlib.png"))),
                ("text file", .fromFile(text)),
                ("missing file", .fromFilePath(dir.appendingPathComponent("missing.jpg").path)),
                ("folder", .fromFile(dir)),
                ("empty bytes", .fromEncoded(Data())),
                ("PNG declared as JPEG", .fromEncoded(png, format: .jpeg)),
                ("raw pixels of the wrong count", .fromRawRGB(Data(count: 100), width: 10, height: 10)),
                ("raw pixels of a huge image", .fromRawRGB(Data(count: 3), width: 20000, height: 20000)),
                ("raw pixels with no size", .fromRawRGB(Data(), width: 0, height: 0)),
            ]
            for (name, image) in bad {
                do {
                    _ = try await sdk.processImage(image, options: options)
                    Issue.record("\(name) was accepted")
                } catch {
                    #expect((error as? SDKException)?.code == .invalidImage, "\(name): \(error)")
                }
            }
            // Nothing was harmed: a good image still runs.
            let after = try await sdk.processImage(Self.pixels(width: 20, height: 20), options: options)
            #expect(after.imageTokens == 16)
        }
    }

    @Test("A projector that does not fit the model, or is not a projector, is refused with nothing left behind")
    func mismatchedProjectors() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let llm = try #require(try DefaultModels.llm().localPath)
        try await withSDK { sdk in
            let narrow = dir.appendingPathComponent("mmproj-512.gguf")
            try Self.writeProjector(to: narrow, outputWidth: 512)
            await expectCode(.invalidModelFormat) {
                try sdk.importVLMModel(from: llm, projector: narrow, id: "narrow", framework: .llamaCpp)
            }
            // A language model is no projector.
            let another = dir.appendingPathComponent("another.gguf")
            try FileManager.default.copyItem(at: llm, to: another)
            await expectCode(.invalidModelFormat) {
                try sdk.importVLMModel(from: llm, projector: another, id: "llm-twice", framework: .llamaCpp)
            }
            await expectCode(.invalidInput) {
                try sdk.importVLMModel(from: llm, projector: llm, id: "same-file", framework: .llamaCpp)
            }
            await expectCode(.modelFileNotFound) {
                try sdk.importVLMModel(
                    from: llm,
                    projector: dir.appendingPathComponent("none.gguf"),
                    id: "none",
                    framework: .llamaCpp
                )
            }
            #expect(try sdk.models(category: .vision).isEmpty)
            let store = sdk.paths.modelsDirectory.appendingPathComponent("llamacpp")
            #expect(!FileManager.default.fileExists(atPath: store.appendingPathComponent("narrow").path))
            #expect(
                (try? FileManager.default.contentsOfDirectory(atPath: sdk.paths.tempDirectory.path))?.isEmpty
                    ?? true
            )
            #expect(FileManager.default.fileExists(atPath: narrow.path), "a copy import leaves the source alone")

            // A pair registered by hand (no import check) is refused when it loads, and a model
            // loaded before stays loaded.
            try Self.importPair(sdk, "good", dir: dir)
            try await sdk.loadVLMModel("good")
            let goodFolder = try #require(try sdk.model("good").localPath).deletingLastPathComponent()
            try FileManager.default.copyItem(at: narrow, to: goodFolder.appendingPathComponent("mmproj-512.gguf"))
            var handMade = try sdk.model("good")
            handMade.id = "hand-made"
            handMade.visionProjectorFile = "mmproj-512.gguf"
            try sdk.registerModel(handMade)
            await expectCode(.invalidModelFormat) { try await sdk.loadVLMModel("hand-made") }
            // A language model without a projector is not a VLM.
            await expectCode(.invalidInput) { try await sdk.loadVLMModel(DefaultModels.llmId) }
            #expect(await sdk.currentVLMModel?.id == "good")
        }
    }

    @Test("Images that do not fit the context, and images sent to a plain language model, are refused")
    func contextAndRouting() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withSDK { sdk in
            try Self.importPair(sdk, "vlm-224", dir: dir, imageSize: 224, patchSize: 14)
            try await sdk.loadVLMModel("vlm-224", contextLength: 128)
            await expectCode(.contextLengthExceeded) {
                try await sdk.describeImage(Self.pixels(width: 50, height: 50))
            }
            try await sdk.unloadVLMModel()
            await expectCode(.modelNotLoaded) {
                try await sdk.describeImage(Self.pixels(width: 50, height: 50))
            }
            // The language model's capability takes no images.
            try await sdk.loadModel(DefaultModels.llmId)
            await expectCode(.invalidInput) {
                try await sdk.runtime().llm.generate(
                    .messages([.user("Hi", images: [Self.pixels(width: 4, height: 4)])]),
                    options: greedy
                )
            }
            #expect(try await sdk.generate("Say hi.", options: greedy).generatedTokens > 0)
        }
    }

    @Test("A VLM registered by URL downloads both files into one folder, checked against each other, and loads")
    func downloadedPair() async throws {
        let root = try Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.copyItem(
            at: try #require(try DefaultModels.llm().localPath),
            to: root.appendingPathComponent("model.gguf")
        )
        try Self.writeProjector(to: root.appendingPathComponent("mmproj.gguf"))
        try Self.writeProjector(to: root.appendingPathComponent("mmproj-512.gguf"), outputWidth: 512)
        let server = try await LocalFileServer.start(root: root)
        do {
            try await withSDK(models: []) { sdk in
                let model = RemoteFile(url: server.url(for: "model.gguf"))
                try sdk.registerVLMModel(
                    model: model,
                    projector: RemoteFile(
                        url: server.url(for: "mmproj.gguf"),
                        sha256: try sha256sum(root.appendingPathComponent("mmproj.gguf"))
                    ),
                    id: "served-vlm",
                    framework: .llamaCpp
                )
                var last: DownloadProgress?
                for await report in try sdk.downloadModel("served-vlm") { last = report }
                #expect(last?.stage == .completed, "\(String(describing: last?.error))")
                let installed = try sdk.model("served-vlm")
                #expect(installed.visionProjectorFile == "mmproj.gguf")
                try await sdk.loadVLMModel("served-vlm")
                let result = try await sdk.describeImage(
                    Self.pixels(width: 40, height: 30),
                    options: LLMGenerationOptions(maxTokens: 2, temperature: 0)
                )
                #expect(result.imageTokens == 16)

                // A pair whose projector does not fit is refused after download; nothing is installed.
                try sdk.registerVLMModel(
                    model: model,
                    projector: RemoteFile(url: server.url(for: "mmproj-512.gguf")),
                    id: "misfit",
                    framework: .llamaCpp
                )
                var failed: DownloadProgress?
                for await report in try sdk.downloadModel("misfit") { failed = report }
                #expect(failed?.error?.code == .invalidModelFormat, "\(String(describing: failed?.error))")
                #expect(try sdk.model("misfit").localPath == nil)
                await expectCode(.invalidInput) {
                    try sdk.registerVLMModel(model: model, projector: model, id: "twice", framework: .llamaCpp)
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Where a real vision-language pair sits, if someone put one there (see the README's
    /// "Vision-language models" section): RUNANYWHERE_VLM_MODEL and RUNANYWHERE_VLM_PROJECTOR.
    static var realPair: (model: URL, projector: URL)? {
        let environment = ProcessInfo.processInfo.environment
        guard let model = environment["RUNANYWHERE_VLM_MODEL"],
            let projector = environment["RUNANYWHERE_VLM_PROJECTOR"],
            FileManager.default.fileExists(atPath: model), FileManager.default.fileExists(atPath: projector)
        else { return nil }
        return (URL(fileURLWithPath: model), URL(fileURLWithPath: projector))
    }

    @Test(
        "A real vision-language model describes a real photograph",
        .enabled(
            if: realPair != nil,
            "No vision-language weights are available offline here: set RUNANYWHERE_VLM_MODEL and RUNANYWHERE_VLM_PROJECTOR to a real pair (e.g. SmolVLM-256M-Instruct GGUF and its mmproj)"
        )
    )
    func realModelDescribesAPhoto() async throws {
        let pair = try #require(Self.realPair)
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = try Self.photographs(into: dir)
        try await withSDK(models: []) { sdk in
            try sdk.importVLMModel(
                from: pair.model,
                projector: pair.projector,
                id: "real-vlm",
                framework: .llamaCpp
            )
            try await sdk.loadVLMModel("real-vlm")
            let astronaut = try #require(photos.first { $0.file.lastPathComponent == "astronaut.png" }).file
            let result = try await sdk.describeImage(
                .fromFile(astronaut),
                options: LLMGenerationOptions(maxTokens: 48, temperature: 0)
            )
            let words = ["astronaut", "space", "suit", "woman", "person", "man", "flag"]
            #expect(words.contains { result.text.lowercased().contains($0) }, "\(result.text)")
        }
    }
}
