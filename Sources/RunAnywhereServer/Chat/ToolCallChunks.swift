import Foundation
import RunAnywhere

/// The `tool_calls` deltas of a streamed chat completion, as OpenAI sends them: each call's
/// index, id, type and name with empty arguments first, then its arguments in pieces as the
/// model writes them. A pure state machine: given the SDK's events, it returns the deltas.
///
/// Calls in formats that write arguments as JSON arrive in pieces (`toolCallDelta`); the
/// checked call that follows them sends nothing more. Calls in other formats come whole.
struct ToolCallChunks {
    private struct Entry {
        var name: String
        var arguments: String
        var complete: Bool
    }

    private var entries: [Entry] = []
    /// The entry of each call of the model's turn that is streaming its arguments.
    private var streaming: [Int: Int] = [:]
    private let newId: () -> String

    /// `newId` names each call for the client; OpenAI's ids look like `call_…`.
    init(
        newId: @escaping () -> String = {
            "call_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(24).lowercased()
        }
    ) {
        self.newId = newId
    }

    /// The deltas for a piece of a call's arguments.
    mutating func delta(_ piece: ToolCallDelta) -> [JSONObject] {
        var deltas: [JSONObject] = []
        let index: Int
        if let known = streaming[piece.index] {
            index = known
        } else {
            index = entries.count
            entries.append(Entry(name: piece.name, arguments: "", complete: false))
            streaming[piece.index] = index
            deltas.append(header(index, id: newId(), name: piece.name))
        }
        entries[index].arguments += piece.arguments
        deltas.append(arguments(index, piece.arguments))
        return deltas
    }

    /// The deltas for a complete call: none when its arguments were streamed, else the call whole.
    mutating func call(_ call: ToolCall) -> [JSONObject] {
        if let index = entries.firstIndex(where: { !$0.complete && $0.name == call.name && !$0.arguments.isEmpty }) {
            entries[index].complete = true
            return []
        }
        let index = entries.count
        entries.append(Entry(name: call.name, arguments: call.arguments.jsonText(), complete: true))
        return [header(index, id: call.id, name: call.name), arguments(index, call.arguments.jsonText())]
    }

    private func header(_ index: Int, id: String, name: String) -> JSONObject {
        [
            "tool_calls": [
                [
                    "index": .integer(Int64(index)),
                    "id": .string(id),
                    "type": "function",
                    "function": ["name": .string(name), "arguments": ""],
                ]
            ]
        ]
    }

    private func arguments(_ index: Int, _ text: String) -> JSONObject {
        ["tool_calls": [["index": .integer(Int64(index)), "function": ["arguments": .string(text)]]]]
    }
}
