import Foundation
@_spi(Backend) import RunAnywhere

/// The state of one streamed completion: text pieces out, token usage, the finish reason
/// and tool calls assembled from their deltas.
///
/// Chat chunks carry `choices[0].delta.content` and `delta.tool_calls`; completion chunks
/// `choices[0].text`. A chunk with `error` (some servers report failures mid-stream that
/// way) fails the stream.
struct RemoteCompletionStream {
    let chat: Bool
    private(set) var isDone = false
    private(set) var finishReason: String?
    private(set) var promptTokens: Int?
    private(set) var completionTokens: Int?
    /// Text pieces received: the token count when the server reports no usage.
    private(set) var pieces = 0
    private var calls: [Int: (id: String, name: String, arguments: String)] = [:]

    init(chat: Bool) {
        self.chat = chat
    }

    /// Reads one event's data; returns its text, if any.
    ///
    /// - Throws: `.remoteBadResponse` for a chunk that is not the API's JSON,
    ///   `.remoteServerError` for an error the server reports in the stream.
    mutating func consume(_ event: String, http: RemoteHTTPClient) throws(SDKException) -> String? {
        let data = event.trimmedSpaces()
        if data == "[DONE]" {
            isDone = true
            return nil
        }
        guard !data.isEmpty else { return nil }
        return try consume(json: try http.parse(Data(data.utf8), what: "stream chunk"))
    }

    /// Reads a whole response, from a server that answered `stream: true` with one JSON
    /// object; returns its text.
    mutating func consumeWhole(_ json: JSONValue) throws(SDKException) -> String? {
        defer { isDone = true }
        return try consume(json: json)
    }

    /// Reads one chunk (`delta`) or whole response (`message`); returns its text, if any.
    private mutating func consume(json: JSONValue) throws(SDKException) -> String? {
        guard case .object = json else {
            throw SDKException(.remoteBadResponse, "A stream chunk is \(json.typeName), not an object")
        }
        if let error = json["error"] {
            let message = error["message"]?.stringValue ?? error.stringValue ?? error.jsonText()
            throw SDKException(.remoteServerError, "The server failed mid-stream: \(message.prefix(500))")
        }
        if let usage = json["usage"], case .object = usage {
            promptTokens = usage["prompt_tokens"]?.integerValue.map(Int.init) ?? promptTokens
            completionTokens = usage["completion_tokens"]?.integerValue.map(Int.init) ?? completionTokens
        }
        guard let choice = json["choices"]?.arrayValue?.first else { return nil }
        if let reason = choice["finish_reason"]?.stringValue { finishReason = reason }
        let part = choice["delta"] ?? choice["message"]
        let text = chat ? part?["content"]?.stringValue : choice["text"]?.stringValue
        if chat, let deltas = part?["tool_calls"]?.arrayValue { try addToolCallDeltas(deltas) }
        guard let text, !text.isEmpty else { return nil }
        pieces += 1
        return text
    }

    private mutating func addToolCallDeltas(_ deltas: [JSONValue]) throws(SDKException) {
        for (position, delta) in deltas.enumerated() {
            let index = delta["index"]?.integerValue.map(Int.init) ?? position
            var call = calls[index] ?? ("", "", "")
            // OpenAI sends the id and name once; llama-cpp-python repeats them in every chunk.
            if let id = delta["id"]?.stringValue, id != call.id { call.id += id }
            if let name = delta["function"]?["name"]?.stringValue, name != call.name { call.name += name }
            if let arguments = delta["function"]?["arguments"]?.stringValue { call.arguments += arguments }
            calls[index] = call
        }
    }

    /// The tool calls the stream carried, in order, their arguments parsed.
    ///
    /// - Throws: `.remoteBadResponse` for a call without a name or with arguments that are not a JSON object.
    func toolCalls() throws(SDKException) -> [ToolCall] {
        var result: [ToolCall] = []
        for index in calls.keys.sorted() {
            guard let call = calls[index] else { continue }
            guard !call.name.isEmpty else {
                throw SDKException(.remoteBadResponse, "The server sent a tool call without a function name")
            }
            let text = call.arguments.trimmed()
            let arguments: JSONValue
            do {
                arguments = text.isEmpty ? .object(JSONObject()) : try JSONValue(parsing: text)
            } catch {
                throw SDKException(
                    .remoteBadResponse,
                    "The arguments of the server's call of '\(call.name)' are not JSON: \(text.prefix(200))"
                )
            }
            result.append(ToolCall(id: call.id, name: call.name, arguments: arguments))
        }
        return result
    }
}
