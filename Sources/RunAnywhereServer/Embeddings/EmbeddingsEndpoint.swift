import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/embeddings`: vectors of a string or an array of strings, as floats or base64.
struct EmbeddingsEndpoint: Sendable {
    let state: ServerState

    /// Most inputs one request may carry, as OpenAI allows.
    static let maximumInputs = 2048

    struct Body: Decodable, Sendable {
        var model: String
        /// A string or strings; token arrays are not supported.
        var input: StringOrArray
        var encodingFormat: String?
        var dimensions: Int?

        enum CodingKeys: String, CodingKey {
            case model, input, dimensions
            case encodingFormat = "encoding_format"
        }
    }

    private struct Response: Encodable {
        var object = "list"
        var data: [Item]
        var model: String
        var usage: Usage
    }

    private struct Item: Encodable {
        var object = "embedding"
        var index: Int
        var embedding: Vector
    }

    private enum Vector: Encodable {
        case floats([Float])
        case base64(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .floats(let values): try container.encode(values)
            case .base64(let text): try container.encode(text)
            }
        }
    }

    private struct Usage: Encodable {
        var promptTokens: Int
        var totalTokens: Int

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case totalTokens = "total_tokens"
        }
    }

    func handle(_ request: Request) async throws -> Hummingbird.Response {
        let body = try await state.decode(Body.self, from: request)
        let model = try state.host.model(body.model, for: .embedding)
        let texts = body.input.values
        guard !texts.isEmpty else { throw OpenAIError.invalid("'input' must not be empty", param: "input") }
        guard texts.count <= Self.maximumInputs else {
            throw OpenAIError.invalid("'input' takes at most \(Self.maximumInputs) strings", param: "input")
        }
        if let index = texts.firstIndex(where: { $0.trimmed().isEmpty }) {
            throw OpenAIError.invalid("Input \(index) is empty", param: "input")
        }
        let base64: Bool
        switch body.encodingFormat ?? "float" {
        case "float": base64 = false
        case "base64": base64 = true
        default:
            throw OpenAIError.invalid("'encoding_format' must be float or base64", param: "encoding_format")
        }
        let result = try await state.withModel(model) {
            try await state.sdk.embeddings(for: texts)
        }
        if let dimensions = body.dimensions, dimensions != result.dimension {
            throw OpenAIError.invalid(
                "'\(model.id)' makes \(result.dimension)-dimensional vectors; it cannot shorten them to \(dimensions)",
                param: "dimensions"
            )
        }
        let tokens = result.tokenCounts.reduce(0, +)
        state.metrics.recordTokens(prompt: tokens, completion: 0)
        let items = result.vectors.enumerated().map { index, vector in
            Item(index: index, embedding: base64 ? .base64(Self.base64(vector)) : .floats(vector))
        }
        return try .json(
            encoding: Response(
                data: items,
                model: model.id,
                usage: Usage(promptTokens: tokens, totalTokens: tokens)
            )
        )
    }

    /// The vector as OpenAI's base64: little-endian 32-bit floats.
    static func base64(_ vector: [Float]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Data(bytes).base64EncodedString()
    }
}
