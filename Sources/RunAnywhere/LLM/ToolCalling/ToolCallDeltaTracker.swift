/// Turns a model turn's output, as it grows, into the pieces of each call's arguments not yet
/// sent. A pure state machine: it is given the whole output so far (or the calls a parser read
/// from it) and returns the deltas.
struct ToolCallDeltaTracker {
    private let syntax: (any ToolCallSyntax)?
    /// Each call's arguments already sent, by the call's index in the turn.
    private var sent: [[UInt8]] = []

    /// A tracker for output in `syntax`; without one, only ``deltas(of:)`` reads calls (a
    /// parser of the model's own format reads them).
    init(syntax: (any ToolCallSyntax)? = nil) {
        self.syntax = syntax
    }

    /// Whether the syntax writes arguments as JSON, so there are pieces to stream at all.
    var streams: Bool { syntax?.partialCalls(in: "") != nil }

    /// The new pieces of arguments in `output` (the whole turn so far), in call order. A
    /// call's pieces start once its tool's name is whole.
    mutating func deltas(in output: String) -> [ToolCallDelta] {
        guard let calls = syntax?.partialCalls(in: output) else { return [] }
        return deltas(of: calls)
    }

    /// The new pieces of `calls` (each call's arguments so far). Text a parser rewrites rather
    /// than extends is not sent again: that call streams no further, and its checked call
    /// still follows.
    mutating func deltas(of calls: [PartialToolCall]) -> [ToolCallDelta] {
        var deltas: [ToolCallDelta] = []
        for (index, call) in calls.enumerated() {
            guard let name = call.name else { continue }
            if sent.count <= index { sent += Array(repeating: [], count: index + 1 - sent.count) }
            let bytes = Array(call.arguments.utf8)
            guard bytes.count > sent[index].count, bytes.starts(with: sent[index]) else { continue }
            deltas.append(
                ToolCallDelta(
                    index: index,
                    name: name,
                    arguments: String(decoding: bytes[sent[index].count...], as: UTF8.self)
                )
            )
            sent[index] = bytes
        }
        return deltas
    }
}
