import AsyncHTTPClient
// JSONSerialization, Process and FileHandle: full Foundation's, like the HTTP stack this goes with.
import Foundation
import NIOCore
import NIOHTTP1
import RunAnywhere
import RunAnywhereCommandLine

/// One streamed chat completion by a plain HTTP client, as any caller of an OpenAI server
/// sees it: the baseline `bench serve` and `bench remote` hold the SDK against.
enum ChatStreamProbe {
    struct Result {
        /// From sending the request to the first text.
        var ttftMs: Double
        /// From sending the request to the end of the stream.
        var totalMs: Double
        /// Generated tokens, from the usage chunk (or text chunks when the server sends none).
        var tokens: Int
        /// Decode speed after the first token.
        var tokensPerSecond: Double
    }

    /// Streams `payload` (a chat request; `stream` and `stream_options` are added) to `url`.
    static func run(url: String, payload: [String: Any], apiKey: String? = nil) async throws -> Result {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let apiKey { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        var payload = payload
        payload["stream"] = true
        payload["stream_options"] = ["include_usage": true]
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: payload)))
        let start = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        guard response.status == .ok else {
            throw SDKException(.internalError, "The server answered \(response.status.code)")
        }
        var first: ContinuousClock.Instant?
        var last = start
        var tokens = 0
        var pieces = 0
        var pending = ""
        for try await buffer in response.body {
            pending += String(buffer: buffer)
            while let end = pending.range(of: "\n\n") {
                let event = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                guard event.hasPrefix("data: {") else { continue }
                let object = try JSONSerialization.jsonObject(with: Data(event.dropFirst(6).utf8)) as? [String: Any]
                if let usage = object?["usage"] as? [String: Any], let count = usage["completion_tokens"] as? Int {
                    tokens = count
                }
                let delta = ((object?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])
                if let content = delta?["content"] as? String, !content.isEmpty {
                    let now = ContinuousClock.now
                    if first == nil { first = now }
                    last = now
                    pieces += 1
                }
            }
        }
        let end = ContinuousClock.now
        if tokens == 0 { tokens = pieces }
        guard let first, tokens > 1 else { throw SDKException(.internalError, "A stream produced no tokens") }
        return Result(
            ttftMs: start.duration(to: first).seconds * 1000,
            totalMs: start.duration(to: end).seconds * 1000,
            tokens: tokens,
            tokensPerSecond: Double(tokens - 1) / first.duration(to: last).seconds
        )
    }
}
