import Foundation
import MCP
import RunAnywhere
import Synchronization

/// Keeps the raw JSON of the answers to chosen requests.
///
/// The MCP SDK decodes every message into its `Value`, whose objects are dictionaries, so
/// member order is lost (and Swift's dictionary order changes from run to run), and a string
/// that happens to be a data URL is decoded and encoded again. A tool's property order is the
/// order a model writes its arguments in, so listings and results are read again, from the
/// line as the server wrote it, with RunAnywhere's order-keeping parser.
final class ResponseTap: Sendable {
    /// The awaited ids, with the answer once it has arrived.
    private let answers = Mutex<[String: JSONValue?]>([:])

    /// Starts keeping the answer to `id`; call before sending the request.
    func expect(_ id: ID) {
        answers.withLock { $0[Self.key(id)] = .some(nil) }
    }

    /// The whole answer message to `id` (with its `result` or `error`), if it arrived; stops
    /// keeping it either way.
    func take(_ id: ID) -> JSONValue? {
        answers.withLock { $0.removeValue(forKey: Self.key(id)) } ?? nil
    }

    /// Looks at one line from the server, on the thread that reads them.
    func inspect(_ line: Data) {
        guard !answers.withLock({ $0.isEmpty }) else { return }
        guard let message = try? JSONValue(parsing: String(decoding: line, as: UTF8.self)),
            message["method"] == nil,
            let key = message["id"].flatMap(Self.answerKey)
        else { return }
        answers.withLock { answers in
            if answers[key] != nil {
                answers[key] = message
            }
        }
    }

    private static func key(_ id: ID) -> String {
        switch id {
        case .string(let string): "s" + string
        case .number(let number): "n\(number)"
        }
    }

    private static func answerKey(_ id: JSONValue) -> String? {
        switch id {
        case .string(let string): "s" + string
        case .integer(let number): "n\(number)"
        default: nil
        }
    }
}
