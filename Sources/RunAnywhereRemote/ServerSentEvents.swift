import Foundation
import RunAnywhere

/// An incremental parser of a `text/event-stream` body: bytes in as they arrive, each
/// event's `data` out as soon as its blank line is seen.
///
/// Lines end with LF, CR LF or CR. `data:` lines of one event are joined with LF; other
/// fields (`event`, `id`, `retry`) and comments are ignored, as OpenAI streams use none.
/// A line longer than ``maximumLineBytes``, or an event whose `data:` lines add up to more
/// than that, fails the stream instead of growing a buffer without bound.
struct ServerSentEvents {
    /// The longest line, and the most data one event may gather: far above any chunk a server
    /// sends (a chunk carries a few tokens), far below what would strain memory.
    static let maximumLineBytes = 1 << 20

    private var line: [UInt8] = []
    private var data: [UInt8]?
    private var lastWasCR = false

    /// Feeds bytes; returns the data of every event they complete.
    ///
    /// - Throws: `.remoteBadResponse` for a line over the limit.
    mutating func consume(_ bytes: some Sequence<UInt8>) throws(SDKException) -> [String] {
        var events: [String] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A, 0x0D:
                lastWasCR = byte == 0x0D
                if let event = try endLine() { events.append(event) }
            default:
                guard line.count < Self.maximumLineBytes else {
                    throw SDKException(
                        .remoteBadResponse,
                        "The server sent a stream line longer than \(Self.maximumLineBytes / 1024) KiB"
                    )
                }
                line.append(byte)
            }
        }
        return events
    }

    /// The event left when the body ends without a final blank line.
    mutating func finish() -> String? {
        if !line.isEmpty { _ = try? endLine() }
        defer { data = nil }
        return data.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether bytes of an unfinished event are buffered.
    var hasPartialEvent: Bool { !line.isEmpty || data != nil }

    private mutating func endLine() throws(SDKException) -> String? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            defer { data = nil }
            return data.map { String(decoding: $0, as: UTF8.self) }
        }
        guard line.starts(with: Array("data".utf8)) else { return nil }
        var value = line.dropFirst(4)
        if let colon = value.first {
            guard colon == UInt8(ascii: ":") else { return nil }  // a field named e.g. "datax"
            value = value.dropFirst()
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        }
        guard (data?.count ?? 0) + value.count < Self.maximumLineBytes else {
            throw SDKException(
                .remoteBadResponse,
                "The server sent a stream event with more than \(Self.maximumLineBytes / 1024) KiB of data"
            )
        }
        if data == nil {
            data = Array(value)
        } else {
            data?.append(0x0A)
            data?.append(contentsOf: value)
        }
        return nil
    }
}
