import Foundation
import RunAnywhere
import Testing

@testable import RunAnywhereServer

/// Ollama's `options` object as a hostile client may send it.
@Suite("Ollama options")
struct OllamaOptionsTests {
    @Test("A request asks for at most the server's cores, however many threads it names")
    func threadsStayWithinTheCores() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let many = try Ollama.options(JSONValue.object(["num_thread": 481]), contextLength: 512)
        #expect(many.threads == cores)
        let one = try Ollama.options(JSONValue.object(["num_thread": 1]), contextLength: 512)
        #expect(one.threads == 1)
        let none = try Ollama.options(JSONValue.object(["num_thread": 0]), contextLength: 512)
        #expect(none.threads == nil, "below 1 keeps the model's setting")
    }
}
