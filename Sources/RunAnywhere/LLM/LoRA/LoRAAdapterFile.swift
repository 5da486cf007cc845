#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A LoRA adapter's GGUF file, read and checked the way llama.cpp will load it, so that a
/// bad adapter is a typed error instead of a silent no-op or a refusal without a reason.
///
/// The format (llama.cpp's `llama_adapter_lora_init`): `general.type` is `adapter`,
/// `adapter.type` is `lora`, `general.architecture` is the base model's, `adapter.lora.alpha`
/// is optional; each changed model tensor `W` of ggml shape `[n_in, n_out]` has a pair
/// `W.lora_a` of shape `[n_in, r]` and `W.lora_b` of shape `[r, n_out]` (numpy's shapes
/// reversed). The token embedding is the one exception: its pair is transposed
/// (`lora_a` `[r, n_vocab]`, `lora_b` `[r, n_embd]`). Other tensors are ignored by llama.cpp.
package struct LoRAAdapterFile: Sendable {
    /// One changed model tensor.
    package struct Pair: Sendable, Equatable {
        /// The model tensor's name.
        package var base: String
        package var a: [Int]
        package var b: [Int]
    }

    package let architecture: String
    package let alpha: Float?
    package let pairs: [Pair]
    private let fileName: String

    /// The largest rank among the pairs.
    package var rank: Int { pairs.map(\.rank).max() ?? 0 }

    /// Reads and checks `url`'s header.
    ///
    /// - Throws: `.modelFileNotFound` when unreadable, `.modelCorrupted` for a damaged
    ///   file, `.invalidModelFormat` when it is not a LoRA adapter or its pairs are malformed.
    package init(contentsOf url: URL) throws(SDKException) {
        let file = try GGUFFile(contentsOf: url)
        let name = url.lastPathComponent
        func refuse(_ why: String) -> SDKException {
            SDKException(.invalidModelFormat, "\(name) is not a usable LoRA adapter: \(why)")
        }
        let type = file.metadata["general.type"]?.stringValue
        guard type == "adapter" else {
            throw refuse("its general.type is \(type.map { "'\($0)'" } ?? "missing"), not 'adapter'")
        }
        let adapterType = file.metadata["adapter.type"]?.stringValue
        guard adapterType == "lora" else {
            throw refuse("its adapter.type is \(adapterType.map { "'\($0)'" } ?? "missing"), not 'lora'")
        }
        guard let architecture = file.architecture, !architecture.isEmpty else {
            throw refuse("it names no general.architecture")
        }
        var alpha: Float?
        if let value = file.metadata["adapter.lora.alpha"] {
            guard let number = value.doubleValue, number.isFinite else {
                throw refuse("adapter.lora.alpha is not a number")
            }
            alpha = Float(number)
        }
        var halves: [String: (a: [Int]?, b: [Int]?)] = [:]
        var order: [String] = []
        for tensor in file.tensors {
            let isA = tensor.name.hasSuffix(".lora_a")
            guard isA || tensor.name.hasSuffix(".lora_b") else { continue }
            let base = String(tensor.name.dropLast(".lora_a".count))
            if halves[base] == nil { order.append(base) }
            if isA {
                halves[base, default: (nil, nil)].a = tensor.dimensions
            } else {
                halves[base, default: (nil, nil)].b = tensor.dimensions
            }
        }
        var pairs: [Pair] = []
        for base in order {
            guard let a = halves[base]?.a, let b = halves[base]?.b else {
                throw refuse("\(base) has only one of its lora_a and lora_b tensors")
            }
            guard a.count == 2, b.count == 2 else {
                throw refuse("\(base)'s lora_a \(a) and lora_b \(b) must both be matrices")
            }
            let pair = Pair(base: base, a: a, b: b)
            guard pair.rank > 0 else {
                throw refuse(
                    "\(base)'s lora_a \(a) and lora_b \(b) do not share a rank (lora_a may need transposing)"
                )
            }
            pairs.append(pair)
        }
        self.architecture = architecture
        self.alpha = alpha
        self.pairs = pairs
        self.fileName = name
    }

    /// Whether the adapter fits the model whose GGUF header is `model`.
    package func compatibility(with model: GGUFFile) -> LoraCompatibilityResult {
        var result = LoraCompatibilityResult(
            isCompatible: false,
            adapterArchitecture: architecture,
            modelArchitecture: model.architecture,
            rank: pairs.isEmpty ? nil : rank,
            alpha: alpha
        )
        guard model.architecture == architecture else {
            result.reason =
                "\(fileName) was made for the \(architecture) architecture, the model is \(model.architecture ?? "of no known architecture")"
            return result
        }
        let shapes = Dictionary(model.tensors.map { ($0.name, $0.dimensions) }, uniquingKeysWith: { first, _ in first })
        for pair in pairs {
            guard let shape = shapes[pair.base] else {
                result.reason = "\(fileName) changes \(pair.base), which the model does not have"
                return result
            }
            guard shape.count >= 2, pair.fits(shape) else {
                result.reason =
                    "\(fileName)'s \(pair.base) pair (lora_a \(pair.a), lora_b \(pair.b)) does not fit the model's \(shape)"
                return result
            }
        }
        guard !pairs.isEmpty else {
            result.reason = "\(fileName) has no lora_a/lora_b tensor pairs: it would change nothing"
            return result
        }
        result.matchedTensors = pairs.count
        result.isCompatible = true
        return result
    }
}

extension LoRAAdapterFile.Pair {
    private var isTokenEmbedding: Bool { base == "token_embd.weight" }

    /// The pair's rank, or 0 when its halves disagree.
    var rank: Int {
        if isTokenEmbedding { return a[0] == b[0] ? a[0] : 0 }
        return a[1] == b[0] ? a[1] : 0
    }

    /// Whether the pair's shapes fit the model tensor's (ggml `ne`), as llama.cpp checks them.
    func fits(_ shape: [Int]) -> Bool {
        if isTokenEmbedding { return shape[0] == b[1] && shape[1] == a[1] }
        return shape[0] == a[0] && shape[1] == b[1]
    }
}
