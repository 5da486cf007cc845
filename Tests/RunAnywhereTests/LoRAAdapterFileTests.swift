import Foundation
import Testing

@testable import RunAnywhere

/// The checks made on an adapter's GGUF header before llama.cpp sees it, on files written
/// by ``GGUFWriter``; the real engine tests show llama.cpp agrees.
@Suite("LoRA adapter files")
struct LoRAAdapterFileTests {
    private let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ra-lora-unit-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Writes a GGUF file with `metadata` and zero-filled F32 tensors of the given shapes.
    private func file(_ name: String, metadata: [(String, GGUFValue)], tensors: [(String, [Int])]) throws -> URL {
        var writer = GGUFWriter()
        for (key, value) in metadata { writer.set(key, value) }
        for (tensor, shape) in tensors {
            try writer.addTensor(tensor, dimensions: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))
        }
        let url = folder.appendingPathComponent(name)
        try writer.write(to: url)
        return url
    }

    private func adapter(
        _ name: String,
        architecture: String = "llama",
        type: String = "adapter",
        alpha: GGUFValue? = .float32(16),
        tensors: [(String, [Int])]
    ) throws -> URL {
        var metadata: [(String, GGUFValue)] = [
            ("general.architecture", .string(architecture)), ("general.type", .string(type)),
            ("adapter.type", .string("lora")),
        ]
        if let alpha { metadata.append(("adapter.lora.alpha", alpha)) }
        return try file(name, metadata: metadata, tensors: tensors)
    }

    /// A model header shaped like a tiny llama: 8 wide, 4 for values, 16 tokens.
    private func model() throws -> GGUFFile {
        try GGUFFile(
            contentsOf: file(
                "model.gguf",
                metadata: [("general.architecture", .string("llama"))],
                tensors: [
                    ("token_embd.weight", [8, 16]), ("blk.0.attn_q.weight", [8, 8]), ("blk.0.attn_v.weight", [8, 4]),
                ]
            )
        )
    }

    @Test("A well-formed adapter fits, its rank and alpha read, the token embedding in its flipped layout")
    func compatibleAdapter() throws {
        let url = try adapter(
            "good.gguf",
            tensors: [
                ("blk.0.attn_q.weight.lora_a", [8, 2]), ("blk.0.attn_q.weight.lora_b", [2, 8]),
                ("blk.0.attn_v.weight.lora_a", [8, 2]), ("blk.0.attn_v.weight.lora_b", [2, 4]),
                ("token_embd.weight.lora_a", [2, 16]), ("token_embd.weight.lora_b", [2, 8]),
                ("blk.0.attn_norm.weight", [8]),
            ]
        )
        let file = try LoRAAdapterFile(contentsOf: url)
        #expect(file.rank == 2)
        #expect(file.alpha == 16)
        #expect(file.pairs.map(\.base) == ["blk.0.attn_q.weight", "blk.0.attn_v.weight", "token_embd.weight"])
        let result = file.compatibility(with: try model())
        #expect(result.isCompatible, "\(result.reason ?? "")")
        #expect(result.matchedTensors == 3)
        #expect(result.modelArchitecture == "llama")
        #expect(try LoRAAdapterFile(contentsOf: adapter("int-alpha.gguf", alpha: .uint32(8), tensors: [])).alpha == 8)
    }

    @Test("Files that are not LoRA adapters, or have malformed pairs, are refused with the reason")
    func malformedAdapters() throws {
        let cases: [(String, URL)] = [
            ("model", try adapter("model.gguf", type: "model", tensors: [])),
            ("alpha", try adapter("alpha.gguf", alpha: .string("high"), tensors: [])),
            ("half pair", try adapter("half.gguf", tensors: [("blk.0.attn_q.weight.lora_a", [8, 2])])),
            (
                "not matrices",
                try adapter("flat.gguf", tensors: [("x.lora_a", [16]), ("x.lora_b", [2, 8])])
            ),
            (
                "ranks differ",
                try adapter("rank.gguf", tensors: [("x.lora_a", [8, 2]), ("x.lora_b", [3, 8])])
            ),
            (
                "no adapter.type",
                try file(
                    "plain.gguf",
                    metadata: [("general.architecture", .string("llama")), ("general.type", .string("adapter"))],
                    tensors: []
                )
            ),
        ]
        for (name, url) in cases {
            let error = #expect(throws: SDKException.self, "\(name)") { try LoRAAdapterFile(contentsOf: url) }
            #expect(error?.code == .invalidModelFormat, "\(name)")
        }
        let missing = #expect(throws: SDKException.self) {
            try LoRAAdapterFile(contentsOf: folder.appendingPathComponent("none.gguf"))
        }
        #expect(missing?.code == .modelFileNotFound)
    }

    @Test("Another architecture, a tensor the model lacks, a wrong shape or no pairs at all do not fit")
    func incompatibleAdapters() throws {
        let model = try model()
        let pair = [("blk.0.attn_q.weight.lora_a", [8, 2]), ("blk.0.attn_q.weight.lora_b", [2, 8])]
        let cases: [(String, URL, String)] = [
            ("architecture", try adapter("gpt2.gguf", architecture: "gpt2", tensors: pair), "architecture"),
            (
                "missing tensor",
                try adapter(
                    "ghost.gguf",
                    tensors: [("blk.9.attn_q.weight.lora_a", [8, 2]), ("blk.9.attn_q.weight.lora_b", [2, 8])]
                ),
                "does not have"
            ),
            (
                "shape",
                try adapter(
                    "wide.gguf",
                    tensors: [("blk.0.attn_v.weight.lora_a", [8, 2]), ("blk.0.attn_v.weight.lora_b", [2, 8])]
                ),
                "does not fit"
            ),
            (
                "embedding not flipped",
                try adapter(
                    "embd.gguf",
                    tensors: [("token_embd.weight.lora_a", [2, 8]), ("token_embd.weight.lora_b", [2, 16])]
                ),
                "does not"
            ),
            ("no pairs", try adapter("empty.gguf", tensors: [("blk.0.attn_norm.weight", [8])]), "change nothing"),
        ]
        for (name, url, reason) in cases {
            let result = try LoRAAdapterFile(contentsOf: url).compatibility(with: model)
            #expect(!result.isCompatible, "\(name)")
            #expect(result.matchedTensors == 0, "\(name)")
            #expect(result.reason?.contains(reason) == true, "\(name): \(result.reason ?? "no reason")")
        }
    }
}
