#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a model's weights are stored.
public enum ModelFormat: String, Sendable, Codable, CaseIterable {
    /// GGUF (`.gguf`), the format llama.cpp loads.
    case gguf
    /// ONNX (`.onnx`), as sherpa-onnx runs it.
    case onnx
    /// A ggml file (`.ggml`).
    case ggml
    /// A `.bin` file, such as a whisper.cpp ggml model.
    case bin
    /// An extension the SDK does not recognize.
    case unknown

    /// The format a file name's extension suggests; `.unknown` when it suggests none.
    public static func guess(fromFileName name: String) -> ModelFormat {
        let file = name.split(separator: "/").last ?? Substring(name)
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return .unknown }
        return switch file[file.index(after: dot)...].lowercased() {
        case "gguf": .gguf
        case "onnx": .onnx
        case "ggml": .ggml
        case "bin": .bin
        default: .unknown
        }
    }
}

extension ModelFormat {
    /// The raw value as the wire carries it (the original SDK's name).
    public var wireString: String { rawValue }

    /// The format of a wire string, case-insensitively; `nil` when unknown.
    public static func fromWireString(_ string: String) -> ModelFormat? { ModelFormat(rawValue: string.lowercased()) }
}
