#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A vision projector's GGUF file (llama.cpp's `mmproj`), read and checked before libmtmd
/// loads it, so that a wrong file is a typed error that says why.
///
/// The format (libmtmd's `clip.cpp`): `general.architecture` is `clip`,
/// `clip.has_vision_encoder` is true, `clip.projector_type` (or `clip.vision.projector_type`)
/// names the projector, and `clip.vision.image_size` / `clip.vision.patch_size` give the
/// encoder's input. The projector's output width must equal the language model's embedding
/// width (`<arch>.embedding_length`): libmtmd refuses the pair otherwise.
package struct VisionProjectorFile: Sendable {
    /// `mlp` for LLaVA-1.5, `idefics3` for SmolVLM, `gemma3`, `qwen2vl_merger`, …
    package let projectorType: String
    /// The side of the square the encoder takes, in pixels.
    package let imageSize: Int
    /// The side of one patch, in pixels.
    package let patchSize: Int
    /// Width of the vectors the projector hands the language model, where the file tells it
    /// for its projector type (`nil` leaves the check to libmtmd when it loads).
    package let outputWidth: Int?

    /// Reads and checks `url`'s header.
    ///
    /// - Throws: `.modelFileNotFound` when unreadable, `.modelCorrupted` for a damaged file,
    ///   `.invalidModelFormat` when it is not a vision projector.
    package init(contentsOf url: URL) throws(SDKException) {
        let file = try GGUFFile(contentsOf: url)
        func refuse(_ why: String) -> SDKException {
            SDKException(
                .invalidModelFormat,
                "\(url.lastPathComponent) is not a vision projector: \(why)",
                recovery: "Use the mmproj GGUF file published with the model"
            )
        }
        guard file.architecture == "clip" else {
            throw refuse("its general.architecture is \(file.architecture.map { "'\($0)'" } ?? "missing"), not 'clip'")
        }
        guard file.metadata["clip.has_vision_encoder"]?.boolValue == true else {
            throw refuse("it has no vision encoder (clip.has_vision_encoder)")
        }
        guard
            let type = (file.metadata["clip.vision.projector_type"] ?? file.metadata["clip.projector_type"])?
                .stringValue, !type.isEmpty
        else {
            throw refuse("it names no projector type (clip.projector_type)")
        }
        guard let imageSize = file.metadata["clip.vision.image_size"]?.intValue, imageSize > 0,
            let patchSize = file.metadata["clip.vision.patch_size"]?.intValue, patchSize > 0, patchSize <= imageSize
        else {
            throw refuse("its clip.vision.image_size and clip.vision.patch_size are missing or inconsistent")
        }
        projectorType = type
        self.imageSize = imageSize
        self.patchSize = patchSize
        let shapes = Dictionary(file.tensors.map { ($0.name, $0.dimensions) }, uniquingKeysWith: { first, _ in first })
        outputWidth = Self.outputWidth(type: type, shapes: shapes)
    }

    /// The projector's output width, read from its last layer the way `clip_n_mmproj_embd`
    /// does for the projector types whose layout is fixed.
    private static func outputWidth(type: String, shapes: [String: [Int]]) -> Int? {
        switch type {
        case "mlp", "mlp_norm":
            // LLaVA's two-layer MLP ends in mm.2; the Yi-style one in mm.4.
            for name in ["mm.4.weight", "mm.2.weight"] {
                if let shape = shapes[name], shape.count == 2 { return shape[1] }
            }
            return nil
        case "idefics3":
            return shapes["mm.model.fc.weight"].flatMap { $0.count == 2 ? $0[1] : nil }
        default:
            return nil
        }
    }

    /// Checks that this projector can feed the language model in `modelFile`.
    ///
    /// - Throws: `.invalidModelFormat` when the widths differ.
    package func check(against modelFile: URL, projectorName: String) throws(SDKException) {
        guard let outputWidth else { return }
        let model = try GGUFFile(contentsOf: modelFile)
        guard let architecture = model.architecture,
            let width = model.metadata["\(architecture).embedding_length"]?.intValue
        else { return }
        guard width == outputWidth else {
            throw SDKException(
                .invalidModelFormat,
                "The vision projector \(projectorName) does not fit \(modelFile.lastPathComponent): it makes "
                    + "\(outputWidth)-wide vectors, the model's embeddings are \(width) wide",
                recovery: "Use the mmproj file published with this model"
            )
        }
    }
}
