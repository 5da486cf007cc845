import Testing

@testable import RunAnywhere
@testable import RunAnywhereRemote

@Suite("Server-sent events from a remote engine")
struct ServerSentEventsTests {
    @Test("Events split on blank lines, data lines join, and every line ending counts")
    func events() throws {
        var parser = ServerSentEvents()
        let text = "data: one\n\ndata: two\r\ndata: lines\r\n\r\n: comment\nevent: x\ndata:three\r\r"
        #expect(try parser.consume(Array(text.utf8)) == ["one", "two\nlines", "three"])
        #expect(!parser.hasPartialEvent)
        #expect(try parser.consume(Array("data: tail".utf8)).isEmpty)
        #expect(parser.finish() == "tail")
    }

    @Test("A stream that never ends its event is cut at the limit, whether in one line or in many")
    func endlessEvent() throws {
        let limit = ServerSentEvents.maximumLineBytes
        var long = ServerSentEvents()
        #expect(throws: SDKException.self) { try long.consume([UInt8](repeating: UInt8(ascii: "a"), count: limit + 1)) }
        // Many short `data:` lines and no blank line: each line is short, the event is not.
        var many = ServerSentEvents()
        let line = Array("data: \(String(repeating: "x", count: 1000))\n".utf8)
        var fed = 0
        do {
            while fed <= 2 * limit {
                #expect(try many.consume(line).isEmpty)
                fed += line.count
            }
            Issue.record("\(fed) bytes of one event were gathered")
        } catch {
            #expect(error.code == .remoteBadResponse)
            #expect(fed >= limit - line.count, "stopped at the limit, not before: \(fed)")
        }
    }
}
