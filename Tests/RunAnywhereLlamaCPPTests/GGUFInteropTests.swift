import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("GGUF files the SDK writes, read by llama.cpp's own tools", .serialized, .wholeMachine, .tags(.realEngine))
struct GGUFInteropTests {
    struct Dump: Decodable {
        struct Tensor: Decodable {
            var name: String
            var type: String
            var dimensions: [Int]
            var values: [Float]
        }
        var version: Int
        var alignment: Int
        /// [key, type, value] per key, in file order.
        var metadata: [[JSONValue]]
        var tensors: [Tensor]
    }

    @Test("The gguf package reads every key, type, value and tensor the writer wrote")
    func readByTheGGUFPackage() throws {
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("llama"))
        writer.set("test.uint8", .uint8(200))
        writer.set("test.int16", .int16(-300))
        writer.set("test.uint32", .uint32(4_000_000_000))
        writer.set("test.int32", .int32(-7))
        writer.set("test.float32", .float32(0.5))
        writer.set("test.bool", .bool(true))
        writer.set("test.string", .string("naïve 日本語"))
        writer.set("test.uint64", .uint64(1 << 40))
        writer.set("test.int64", .int64(-(1 << 40)))
        writer.set("test.float64", .float64(-2.25))
        writer.set("test.strings", .array(elementType: .string, [.string("a"), .string("ü")]))
        writer.set("test.floats", .array(elementType: .float32, [.float32(1.5), .float32(-2)]))
        try writer.setAlignment(64)
        let ramp = (0..<12).map { Float($0) / 4 - 1 }
        try writer.addTensor("blk.0.attn_q.weight.lora_a", dimensions: [4, 3], values: ramp)
        try writer.addTensor("half", dimensions: [3], values: [1, -0.5, 0.25], type: .f16)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-gguf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("interop.gguf")
        try writer.write(to: url)

        let dump = try JSONDecoder().decode(Dump.self, from: runPythonScript("gguf_dump.py", [url.path]))
        #expect(dump.version == 3)
        #expect(dump.alignment == 64)
        let expected: [[JSONValue]] = [
            ["general.architecture", "STRING", "llama"],
            ["test.uint8", "UINT8", 200],
            ["test.int16", "INT16", -300],
            ["test.uint32", "UINT32", 4_000_000_000],
            ["test.int32", "INT32", -7],
            ["test.float32", "FLOAT32", 0.5],
            ["test.bool", "BOOL", true],
            ["test.string", "STRING", "naïve 日本語"],
            ["test.uint64", "UINT64", .integer(1 << 40)],
            ["test.int64", "INT64", .integer(-(1 << 40))],
            ["test.float64", "FLOAT64", -2.25],
            ["test.strings", "ARRAY", "STRING", ["a", "ü"]],
            ["test.floats", "ARRAY", "FLOAT32", [1.5, -2]],
            ["general.alignment", "UINT32", 64],
        ]
        #expect(dump.metadata == expected)
        #expect(dump.tensors.map(\.name) == ["blk.0.attn_q.weight.lora_a", "half"])
        #expect(dump.tensors.map(\.type) == ["F32", "F16"])
        #expect(dump.tensors.map(\.dimensions) == [[4, 3], [3]])
        #expect(dump.tensors[0].values == ramp)
        #expect(dump.tensors[1].values == [1, -0.5, 0.25])
    }
}
