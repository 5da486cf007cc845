import Foundation
import RealEngineTestSupport
import RunAnywhereLlamaCPP
import RunAnywhereTestSupport
import RunAnywhereTesting
import RunAnywhereTestingFileServer
import Testing

@_spi(Backend) @testable import RunAnywhere

/// LoRA adapters on SmolLM2, written by the tests with ``GGUFWriter`` (no real adapter for
/// so small a model exists offline). What they must show: an adapter really changes the
/// model, the arithmetic of scales and stacking holds in the engine, and a bad adapter
/// is refused without touching the model.
@Suite("LoRA adapters on the real engine", .serialized, .wholeMachine, .tags(.realEngine))
struct LoRATests {
    /// SmolLM2-135M: 576 wide, 192 for the key/value projections, 30 blocks.
    static let targets: [(name: String, input: Int, output: Int)] = (0..<30).flatMap { block in
        [("blk.\(block).attn_q.weight", 576, 576), ("blk.\(block).attn_v.weight", 576, 192)]
    }

    /// Deterministic normal numbers (an LCG through Box–Muller).
    struct Noise {
        var state: UInt64
        mutating func next() -> Float {
            func uniform() -> Double {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return (Double(state >> 11) + 0.5) / Double(1 << 53)
            }
            return Float((-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform()))
        }
        mutating func values(_ count: Int, scale: Float) -> [Float] { (0..<count).map { _ in next() * scale } }
    }

    /// The A and B matrices of one adapter, per target, in ggml order (A `[n_in, r]`, B `[r, n_out]`).
    struct Weights {
        var rank: Int
        var a: [[Float]]
        var b: [[Float]]

        /// Random weights of `magnitude`. At 0.05 the change is large: SmolLM2 then answers
        /// differently, and so chaotically that a change of scale of 1e-4 moves a
        /// log-likelihood by 1; at 0.015 it stays in the range where small float
        /// differences stay small.
        init(rank: Int, seed: UInt64, magnitude: Float = 0.05) {
            var noise = Noise(state: seed)
            self.rank = rank
            a = targets.map { noise.values($0.input * rank, scale: magnitude) }
            b = targets.map { noise.values(rank * $0.output, scale: magnitude) }
        }

        init(rank: Int, a: [[Float]], b: [[Float]]) {
            self.rank = rank
            self.a = a
            self.b = b
        }

        /// B multiplied by `factor`.
        func scalingB(by factor: Float) -> Weights {
            Weights(rank: rank, a: a, b: b.map { $0.map { $0 * factor } })
        }
    }

    static func write(
        _ weights: Weights,
        to url: URL,
        architecture: String = "llama",
        type: String = "adapter",
        alpha: Float? = nil,
        targets chosen: [(name: String, input: Int, output: Int)] = targets,
        only keep: (String) -> Bool = { _ in true }
    ) throws {
        var writer = GGUFWriter()
        writer.set("general.architecture", .string(architecture))
        writer.set("general.type", .string(type))
        writer.set("adapter.type", .string("lora"))
        if let alpha { writer.set("adapter.lora.alpha", .float32(alpha)) }
        for (index, target) in chosen.enumerated() where keep(target.name) {
            try writer.addTensor(
                "\(target.name).lora_a",
                dimensions: [target.input, weights.rank],
                values: weights.a[index % weights.a.count]
            )
            try writer.addTensor(
                "\(target.name).lora_b",
                dimensions: [weights.rank, target.output],
                values: weights.b[index % weights.b.count]
            )
        }
        try writer.write(to: url)
    }

    static let prompt = "<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n"
    static let continuations = [" Blue.", " Red is a colour.", " The sky", " I cannot answer that."]

    /// The log-likelihoods of the continuations: identical numbers mean identical logits.
    /// A different prompt first, so every measurement evaluates the prompt the same way.
    static func scores(_ sdk: RunAnywhereSDK) async throws -> [Double] {
        let service = try await sdk.runtime().llm.loadedService()
        _ = try await service.logLikelihoods(of: [" x"], after: "Unrelated text.")
        return try await service.logLikelihoods(of: continuations, after: prompt)
    }

    static func register(_ sdk: RunAnywhereSDK, _ id: String, _ url: URL, bases: [String] = []) throws {
        try sdk.lora.register(
            LoraAdapterCatalogEntry(id: id, framework: .llamaCpp, baseModelIds: bases, localPath: url)
        )
    }

    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ra-lora-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("Scale 0 and clearing give the base model's logits bit for bit; scale 1 changes them")
    func scaleZeroAndClearAreTheBase() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write(Weights(rank: 8, seed: 1), to: dir.appendingPathComponent("a.gguf"))
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            try Self.register(sdk, "adapter-a", dir.appendingPathComponent("a.gguf"))
            let base = try await Self.scores(sdk)

            let state = try await sdk.lora.apply("adapter-a", scale: 0)
            #expect(state.adapters == [LoRAAdapterSelection(id: "adapter-a", scale: 0)])
            #expect(try await Self.scores(sdk) == base)

            try await sdk.lora.apply("adapter-a", scale: 1)
            let changed = try await Self.scores(sdk)
            let largest = zip(changed, base).map { abs($0 - $1) }.max() ?? 0
            #expect(largest > 0.1, "the adapter moved no log-likelihood by more than \(largest)")

            #expect(try await sdk.lora.clear().adapters.isEmpty)
            #expect(try await Self.scores(sdk) == base)
            #expect(await sdk.loadedLoRAAdapters().isEmpty)
        }
    }

    @Test("An adapter with B at scale s gives the same logits as one with 2B at scale s/2")
    func scaleAndMagnitudeTradeExactly() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let weights = Weights(rank: 8, seed: 2)
        try Self.write(weights, to: dir.appendingPathComponent("b.gguf"), alpha: 4)
        try Self.write(weights.scalingB(by: 2), to: dir.appendingPathComponent("2b.gguf"), alpha: 4)
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            try Self.register(sdk, "b", dir.appendingPathComponent("b.gguf"))
            try Self.register(sdk, "double-b", dir.appendingPathComponent("2b.gguf"))
            let base = try await Self.scores(sdk)
            try await sdk.lora.apply([LoRAAdapterSelection(id: "b", scale: 0.6)])
            let single = try await Self.scores(sdk)
            try await sdk.lora.apply([LoRAAdapterSelection(id: "double-b", scale: 0.3)])
            let doubled = try await Self.scores(sdk)
            #expect(single == doubled)
            #expect(single != base)
            try await sdk.lora.apply([LoRAAdapterSelection(id: "b", scale: 0.3)])
            #expect(try await Self.scores(sdk) != single)
        }
    }

    /// Stacked adapters add their changes. On this model the check can only be exact when
    /// they change different tensors: SmolLM2's Q4_1 matrix products quantize their inputs
    /// to 8 bits, so on one tensor the two ways of adding (one change after the other, or
    /// both in one product) round differently, and the model amplifies that: measured,
    /// a scale of 1.00001 instead of 1 moved a log-likelihood by 0.39.
    @Test("Two stacked adapters give exactly what one adapter holding both gives")
    func stackingAddsTheChanges() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let weights = Weights(rank: 4, seed: 3, magnitude: 0.03)
        let queries = { (name: String) in name.hasSuffix("attn_q.weight") }
        try Self.write(weights, to: dir.appendingPathComponent("q.gguf"), only: queries)
        try Self.write(weights, to: dir.appendingPathComponent("v.gguf"), only: { !queries($0) })
        try Self.write(weights, to: dir.appendingPathComponent("both.gguf"))
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            for id in ["q", "v", "both"] {
                try Self.register(sdk, id, dir.appendingPathComponent("\(id).gguf"))
            }
            try await sdk.lora.apply("q", scale: 0.7)
            let queriesOnly = try await Self.scores(sdk)
            try await sdk.lora.apply("v", scale: 0.7)
            #expect(await sdk.loadedLoRAAdapters().map(\.id) == ["q", "v"])
            let stacked = try await Self.scores(sdk)
            try await sdk.lora.apply([LoRAAdapterSelection(id: "both", scale: 0.7)])
            let combined = try await Self.scores(sdk)
            #expect(stacked == combined)
            #expect(stacked != queriesOnly)
            try await sdk.lora.apply([LoRAAdapterSelection(id: "v", scale: 0.7)])
            #expect(try await Self.scores(sdk) != stacked)
        }
    }

    @Test("A request's own adapters apply to it alone, without reloading the model")
    func perRequestAdapters() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write(Weights(rank: 8, seed: 5).scalingB(by: 2), to: dir.appendingPathComponent("c.gguf"))
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            try Self.register(sdk, "c", dir.appendingPathComponent("c.gguf"))
            let prompt = "Write one sentence about the sea."
            let base = try await sdk.generate(prompt, options: greedy).text
            var withAdapter = greedy
            withAdapter.loraAdapters = [LoRAAdapterSelection(id: "c", scale: 4)]
            let adapted = try await sdk.generate(prompt, options: withAdapter).text
            #expect(adapted != base)
            // Nothing was applied to the model by the request.
            #expect(await sdk.loadedLoRAAdapters().isEmpty)
            #expect(try await sdk.generate(prompt, options: greedy).text == base)
            // Applied to the model, the same adapter gives the same reply; a request can opt out.
            try await sdk.lora.apply("c", scale: 4)
            #expect(try await sdk.generate(prompt, options: greedy).text == adapted)
            var without = greedy
            without.loraAdapters = []
            #expect(try await sdk.generate(prompt, options: without).text == base)
        }
    }

    @Test("Concurrent requests with different adapters each get the text they get alone")
    func concurrentRequestsWithDifferentAdapters() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write(Weights(rank: 8, seed: 5).scalingB(by: 2), to: dir.appendingPathComponent("c.gguf"))
        try Self.write(Weights(rank: 8, seed: 9).scalingB(by: 2), to: dir.appendingPathComponent("e.gguf"))
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId, contextLength: 512, slots: 3)
            try Self.register(sdk, "c", dir.appendingPathComponent("c.gguf"))
            try Self.register(sdk, "e", dir.appendingPathComponent("e.gguf"))
            let prompt = "Write one sentence about the sea."
            let choices: [[LoRAAdapterSelection]] = [
                [], [LoRAAdapterSelection(id: "c", scale: 4)], [LoRAAdapterSelection(id: "e", scale: 4)],
            ]
            var solo: [String] = []
            for adapters in choices {
                var options = greedy
                options.loraAdapters = adapters
                solo.append(try await sdk.generate(prompt, options: options).text)
            }
            #expect(Set(solo).count == 3, "the adapters should change the reply: \(solo)")
            for _ in 0..<2 {
                let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for (index, adapters) in choices.enumerated() {
                        var options = greedy
                        options.loraAdapters = adapters
                        group.addTask { (index, try await sdk.generate(prompt, options: options).text) }
                    }
                    var texts = [String](repeating: "", count: choices.count)
                    for try await (index, text) in group { texts[index] = text }
                    return texts
                }
                #expect(together == solo)
            }
        }
    }

    @Test(
        "An adapter registered by URL downloads with its checksum checked, then applies; a wrong checksum keeps nothing"
    )
    func downloadedAdapter() async throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let adapter = root.appendingPathComponent("served.gguf")
        try Self.write(Weights(rank: 8, seed: 10), to: adapter)
        let digest = try sha256sum(adapter)
        let server = try await LocalFileServer.start(root: root)
        do {
            try await withSDK { sdk in
                try await sdk.loadModel(DefaultModels.llmId)
                let url = server.url(for: "served.gguf")
                let entry = try sdk.lora.register(
                    LoraAdapterCatalogEntry(id: "served", framework: .llamaCpp, downloadURL: url, sha256: digest)
                )
                #expect(entry.localPath == nil)
                await expectCode(.modelFileNotFound) { try await sdk.lora.apply("served") }
                var last: DownloadProgress?
                for await report in try sdk.downloadModel("served") { last = report }
                #expect(last?.stage == .completed, "\(String(describing: last?.error))")
                let downloaded = try #require(try sdk.lora.allRegistered().first { $0.id == "served" })
                #expect(downloaded.rank == 8)
                #expect(downloaded.localPath != nil)
                let base = try await Self.scores(sdk)
                try await sdk.lora.apply("served")
                #expect(try await Self.scores(sdk) != base)

                try sdk.lora.register(
                    LoraAdapterCatalogEntry(
                        id: "bad-sum",
                        framework: .llamaCpp,
                        downloadURL: url,
                        sha256: String(repeating: "ab", count: 32)
                    )
                )
                var failed: DownloadProgress?
                for await report in try sdk.downloadModel("bad-sum") { failed = report }
                #expect(failed?.error?.code == .checksumMismatch)
                #expect(try sdk.model("bad-sum").localPath == nil)
                await expectCode(.invalidInput) {
                    try sdk.lora.register(LoraAdapterCatalogEntry(id: "neither", framework: .llamaCpp))
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("Incompatible adapters are each a typed error, and the model keeps its adapters and output")
    func incompatibleAdapters() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let weights = Weights(rank: 4, seed: 6)
        try Self.write(weights, to: dir.appendingPathComponent("good.gguf"))
        try Self.write(weights, to: dir.appendingPathComponent("gpt2.gguf"), architecture: "gpt2")
        try Self.write(
            Weights(
                rank: 4,
                a: [[Float](repeating: 0.01, count: 577 * 4)],
                b: [[Float](repeating: 0.01, count: 4 * 576)]
            ),
            to: dir.appendingPathComponent("wide.gguf"),
            targets: [("blk.0.attn_q.weight", 577, 576)]
        )
        try Self.write(
            Weights(
                rank: 4,
                a: [[Float](repeating: 0.01, count: 576 * 4)],
                b: [[Float](repeating: 0.01, count: 4 * 576)]
            ),
            to: dir.appendingPathComponent("ghost.gguf"),
            targets: [("blk.99.attn_q.weight", 576, 576)]
        )
        try Self.write(weights, to: dir.appendingPathComponent("empty.gguf"), targets: [])
        try Self.write(weights, to: dir.appendingPathComponent("other-base.gguf"))
        try await withSDK { sdk in
            try await sdk.loadModel(DefaultModels.llmId)
            try Self.register(sdk, "good", dir.appendingPathComponent("good.gguf"))
            try await sdk.lora.apply("good", scale: 0.5)
            let before = try await Self.scores(sdk)
            let reply = try await sdk.generate("Name three colours.", options: greedy).text

            for id in ["gpt2", "wide", "ghost", "empty"] {
                try Self.register(sdk, id, dir.appendingPathComponent("\(id).gguf"))
            }
            try Self.register(
                sdk,
                "other-base",
                dir.appendingPathComponent("other-base.gguf"),
                bases: ["some-other-model"]
            )
            for id in ["gpt2", "wide", "ghost", "empty", "other-base"] {
                let result = await sdk.lora.checkCompatibility(id)
                #expect(!result.isCompatible, "\(id)")
                #expect(result.reason != nil, "\(id)")
                await expectCode(.incompatibleLoRAAdapter) { try await sdk.lora.apply(id) }
                var options = greedy
                options.loraAdapters = [LoRAAdapterSelection(id: id)]
                await expectCode(.incompatibleLoRAAdapter) { try await sdk.generate("Hi", options: options) }
            }
            // A file that is not an adapter, a missing one, and an adapter that is not registered.
            let model = try DefaultModels.llm()
            await expectCode(.invalidModelFormat) {
                try Self.register(sdk, "the-model", model.localPath!)
            }
            #expect((try? sdk.model("the-model")) == nil)
            await expectCode(.modelFileNotFound) {
                try Self.register(sdk, "missing", dir.appendingPathComponent("nothing.gguf"))
            }
            await expectCode(.modelNotFound) { try await sdk.lora.apply("unregistered") }
            await expectCode(.invalidInput) { try await sdk.lora.apply("good", scale: .nan) }
            await expectCode(.invalidInput) { try await sdk.lora.remove("gpt2") }

            #expect(await sdk.loadedLoRAAdapters() == [LoRAAdapterSelection(id: "good", scale: 0.5)])
            #expect(try await Self.scores(sdk) == before)
            #expect(try await sdk.generate("Name three colours.", options: greedy).text == reply)
            let good = await sdk.lora.checkCompatibility("good")
            #expect(good.isCompatible)
            #expect(good.matchedTensors == 60)
            #expect(good.rank == 4)
            #expect(good.adapterArchitecture == "llama")
        }
    }

    @Test("The catalog lists adapters by model, and unloading or removing clears what was applied")
    func catalogAndLifecycle() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.write(Weights(rank: 8, seed: 7), to: dir.appendingPathComponent("d.gguf"), alpha: 16)
        try Self.write(Weights(rank: 4, seed: 8), to: dir.appendingPathComponent("gpt2.gguf"), architecture: "gpt2")
        try await withSDK { sdk in
            try Self.register(sdk, "d", dir.appendingPathComponent("d.gguf"), bases: [DefaultModels.llmId])
            try Self.register(sdk, "gpt2", dir.appendingPathComponent("gpt2.gguf"))
            let entries = try sdk.lora.allRegistered()
            #expect(entries.map(\.id) == ["d", "gpt2"])
            #expect(entries[0].rank == 8)
            #expect(entries[0].alpha == 16)
            #expect(entries[0].tensorCount == 60)
            #expect(entries[0].architecture == "llama")
            #expect(try await sdk.lora.adaptersForModel(DefaultModels.llmId).map(\.id) == ["d"])
            await expectCode(.modelNotLoaded) { try await sdk.lora.apply("d") }
            #expect(await sdk.lora.checkCompatibility("d", model: DefaultModels.llmId).isCompatible)
            // The original SDK's request-shaped catalog calls answer from the same catalog.
            #expect(try await sdk.lora.listCatalog(LoraAdapterCatalogListRequest()).entries == entries)
            let forModel = try await sdk.lora.queryCatalog(LoraAdapterCatalogQuery(modelId: DefaultModels.llmId))
            #expect(forModel.entries.map(\.id) == ["d"])
            #expect(try await sdk.lora.getCatalogEntry(LoraAdapterCatalogGetRequest(adapterId: "gpt2")).found)
            #expect(try await !sdk.lora.getCatalogEntry(LoraAdapterCatalogGetRequest(adapterId: "nope")).found)
            #expect(sdk.currentModel(CurrentModelRequest(category: .llm)).model == nil)
            // An adapter registered by URL whose file the app fetched itself is recorded by a mark.
            let remote = URL(string: "https://example.com/d.gguf")!
            try sdk.lora.register(LoraAdapterCatalogEntry(id: "fetched", framework: .llamaCpp, downloadURL: remote))
            let fetched = dir.appendingPathComponent("d.gguf")
            let marked = try await sdk.lora.markImportCompleted(
                LoraAdapterDownloadCompletedRequest(adapterId: "fetched", localPath: fetched)
            )
            #expect(marked.imported && marked.entry.localPath == fetched && marked.entry.rank == 8)
            let notAnAdapter = dir.appendingPathComponent("notes.txt")
            try Data("not a GGUF file".utf8).write(to: notAnAdapter)
            await expectCode(.invalidModelFormat) {
                try await sdk.lora.markDownloadCompleted(
                    LoraAdapterDownloadCompletedRequest(adapterId: "fetched", localPath: notAnAdapter)
                )
            }
            await expectCode(.modelNotFound) {
                try await sdk.lora.markDownloadCompleted(
                    LoraAdapterDownloadCompletedRequest(adapterId: "nope", localPath: fetched)
                )
            }
            try await sdk.removeModel("fetched")
            #expect(FileManager.default.fileExists(atPath: fetched.path))

            try await sdk.loadModel(DefaultModels.llmId)
            try await sdk.lora.apply("d")
            #expect(
                await sdk.lora.state()
                    == LoRAState(modelId: DefaultModels.llmId, adapters: [LoRAAdapterSelection(id: "d")])
            )
            #expect(sdk.currentModel(CurrentModelRequest(category: .llm)).modelId == DefaultModels.llmId)
            #expect(sdk.componentLifecycleSnapshot(.llm)?.state == .loaded(modelId: DefaultModels.llmId))
            let half = LoRAAdapterConfig(id: "d", scale: 0.5)
            let applied = try await sdk.lora.apply(LoRAApplyRequest(adapters: [half], replaceExisting: true))
            #expect(applied.success && applied.state.adapters == [half])
            #expect(try await sdk.lora.remove(LoRARemoveRequest(adapterIds: ["d"])).adapters.isEmpty)
            try await sdk.lora.apply("d")
            // Loading the model that is loaded keeps its adapters; unloading drops them.
            try await sdk.loadModel(DefaultModels.llmId)
            #expect(await sdk.loadedLoRAAdapters().map(\.id) == ["d"])
            try await sdk.unloadModel()
            #expect(await sdk.lora.state() == LoRAState(modelId: nil, adapters: []))
            #expect(sdk.componentLifecycleSnapshot(.llm)?.state == .notLoaded)
            try await sdk.loadModel(DefaultModels.llmId)
            let base = try await Self.scores(sdk)
            try await sdk.lora.apply("d")
            #expect(try await Self.scores(sdk) != base)
            // Removing the adapter's registry entry takes it off the model.
            try await sdk.removeModel("d")
            #expect(await sdk.loadedLoRAAdapters().isEmpty)
            #expect(try await Self.scores(sdk) == base)
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("d.gguf").path))
        }
    }
}
