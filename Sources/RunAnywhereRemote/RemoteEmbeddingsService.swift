import Foundation
@_spi(Backend) import RunAnywhere

/// A text-embedding model on an OpenAI-compatible server (`/embeddings`).
///
/// Whole texts go to the server, which tokenizes and truncates them itself; the
/// embeddings capability normalizes the vectors like its own. Token counts are the
/// server's total shared out by length, or estimates when it reports none.
final class RemoteEmbeddingsService: EmbeddingsService {
    let model: ModelInfo
    let dimension: Int
    private let http: RemoteHTTPClient

    /// Texts per request: servers cap batch sizes (OpenAI at 2048 inputs, llama.cpp by its batch).
    static let batchSize = 64

    private init(model: ModelInfo, dimension: Int, http: RemoteHTTPClient) {
        self.model = model
        self.dimension = dimension
        self.http = http
    }

    /// Connects, checks that the server serves the model, and learns its dimension from one
    /// embedding.
    static func load(_ model: ModelInfo) async throws -> RemoteEmbeddingsService {
        try await RemoteHTTPClient.loading(model) { http, _ in
            let probe = try await embed(["dimension"], http: http)
            guard let dimension = probe.vectors.first?.count, dimension > 0 else {
                throw SDKException(.remoteBadResponse, "The server returned an empty embedding")
            }
            return RemoteEmbeddingsService(model: model, dimension: dimension, http: http)
        }
    }

    /// The server truncates; the capability only uses this for token counts.
    var maxTokensPerWindow: Int { model.contextLength ?? 8192 }

    /// Estimated tokens (the OpenAI API has no tokenizer endpoint); their values mean nothing.
    func tokenize(_ text: String) async throws -> [Int32] {
        [Int32](repeating: 0, count: RemoteTokenEstimate.count(text))
    }

    func embed(windows: [[Int32]]) async throws -> [[Float]] {
        throw SDKException(.internalError, "Remote embeddings take whole texts")
    }

    func embedWholeTexts(_ texts: [String]) async throws -> WholeTextEmbeddings? {
        var vectors: [[Float]] = []
        var counts: [Int] = []
        for start in stride(from: 0, to: texts.count, by: Self.batchSize) {
            let batch = Array(texts[start..<min(start + Self.batchSize, texts.count)])
            let made = try await Self.embed(batch, http: http)
            vectors += made.vectors
            counts += made.tokenCounts
        }
        return WholeTextEmbeddings(vectors: vectors, tokenCounts: counts, executedOn: .remote)
    }

    func unload() async {
        await http.shutdown()
    }

    private static func embed(
        _ texts: [String],
        http: RemoteHTTPClient
    ) async throws(SDKException) -> WholeTextEmbeddings {
        let body: JSONValue = [
            "model": .string(http.endpoint.remoteModelName),
            "input": .array(texts.map(JSONValue.string)),
            "encoding_format": "float",
        ]
        let json = try http.parse(
            try await http.send(http.request("embeddings", json: body), idempotent: true),
            what: "embeddings"
        )
        guard let data = json["data"]?.arrayValue, data.count == texts.count else {
            throw SDKException(
                .remoteBadResponse,
                "The server returned \(json["data"]?.arrayValue?.count ?? 0) embeddings for \(texts.count) texts"
            )
        }
        var vectors = [[Float]](repeating: [], count: texts.count)
        for (position, item) in data.enumerated() {
            let index = item["index"]?.integerValue.map(Int.init) ?? position
            guard vectors.indices.contains(index), vectors[index].isEmpty,
                let numbers = item["embedding"]?.arrayValue, !numbers.isEmpty
            else {
                throw SDKException(.remoteBadResponse, "Embedding \(position) of the server's answer is malformed")
            }
            var vector: [Float] = []
            vector.reserveCapacity(numbers.count)
            for number in numbers {
                guard let value = number.doubleValue, value.isFinite else {
                    throw SDKException(.remoteBadResponse, "Embedding \(position) holds a value that is not a number")
                }
                vector.append(Float(value))
            }
            vectors[index] = vector
        }
        // The server's total, shared by length; estimates when it reports none.
        let estimates = texts.map(RemoteTokenEstimate.count)
        var counts = estimates
        if let total = json["usage"]?["prompt_tokens"]?.integerValue, total > 0 {
            let sum = max(1, estimates.reduce(0, +))
            counts = estimates.map { max(1, Int((Double($0) * Double(total) / Double(sum)).rounded())) }
        }
        return WholeTextEmbeddings(vectors: vectors, tokenCounts: counts, executedOn: .remote)
    }
}
