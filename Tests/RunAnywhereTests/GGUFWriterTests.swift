import Foundation
import Testing

@testable import RunAnywhere

@Suite("GGUF writer")
struct GGUFWriterTests {
    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-gguf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// One value of every type GGUF has, arrays empty, nested and of strings included.
    static let everyValue: [(String, GGUFValue)] = [
        ("general.architecture", .string("llama")),
        ("test.uint8", .uint8(255)),
        ("test.int8", .int8(-128)),
        ("test.uint16", .uint16(65_535)),
        ("test.int16", .int16(-32_768)),
        ("test.uint32", .uint32(4_000_000_000)),
        ("test.int32", .int32(-2_000_000_000)),
        ("test.float32", .float32(0.1)),
        ("test.bool", .bool(true)),
        ("test.string", .string("naïve 日本語 🎙️")),
        ("test.uint64", .uint64(.max)),
        ("test.int64", .int64(.min)),
        ("test.float64", .float64(-1e300)),
        ("test.empty", .array(elementType: .float32, [])),
        ("test.ints", .array(elementType: .int32, [.int32(1), .int32(-2), .int32(3)])),
        ("test.strings", .array(elementType: .string, [.string("a"), .string(""), .string("ü")])),
        (
            "test.nested",
            .array(
                elementType: .array,
                [
                    .array(elementType: .uint8, [.uint8(1), .uint8(2)]),
                    .array(elementType: .string, [.string("x")]),
                ]
            )
        ),
    ]

    @Test("Metadata of every type, with its exact width, and F32 and F16 tensors read back as written")
    func roundTrip() throws {
        for alignment in [32, 64, 1] {
            var writer = GGUFWriter()
            for (key, value) in Self.everyValue { writer.set(key, value) }
            try writer.setAlignment(alignment)
            let ramp = (0..<24).map { Float($0) * 0.25 - 3 }
            try writer.addTensor("ramp", dimensions: [4, 3, 2], values: ramp)
            // Three values, so the next tensor starts off the alignment unless padded.
            try writer.addTensor("half", dimensions: [3], values: [1, -0.5, 65_504], type: .f16)
            try writer.addTensor("last", dimensions: [1], values: [42])
            let url = try temporaryFolder().appendingPathComponent("every.gguf")
            try writer.write(to: url)

            let file = try GGUFFile(contentsOf: url)
            let expectedKeys = Self.everyValue.map(\.0) + (alignment == 32 ? [] : ["general.alignment"])
            #expect(file.metadataKeys == expectedKeys)
            for (key, value) in Self.everyValue { #expect(file.metadata[key] == value, "\(key)") }
            #expect(file.metadata["general.alignment"] == (alignment == 32 ? nil : .uint32(UInt32(alignment))))
            #expect(file.tensors.map(\.name) == ["ramp", "half", "last"])
            #expect(file.tensors.allSatisfy { $0.offset % UInt64(alignment) == 0 })
            #expect(try file.floats("ramp", dimensions: [4, 3, 2]) == ramp)
            #expect(try file.floats("half", dimensions: [3]) == [1, -0.5, 65_504])
            #expect(try file.floats("last", dimensions: [1]) == [42])
            // Read and written again, the bytes are the same.
            var again = GGUFWriter()
            for key in file.metadataKeys { again.set(key, file.metadata[key]!) }
            try again.setAlignment(alignment)
            for tensor in file.tensors {
                try again.addTensor(
                    tensor.name,
                    dimensions: tensor.dimensions,
                    values: try file.floats(tensor.name, dimensions: tensor.dimensions),
                    type: tensor.type == 1 ? .f16 : .f32
                )
            }
            #expect(again.data() == (try Data(contentsOf: url)))
        }
    }

    @Test("Half precision rounds to nearest even, keeps subnormals, and saturates to infinity")
    func halfPrecision() {
        for value: Float in [0, 1, -2, 0.5, 1024, 65_504, 0x1p-14, 0x1p-24, -0x1p-20] {
            #expect(HalfFloat.float(HalfFloat.bits(value)) == value, "\(value)")
        }
        #expect(HalfFloat.bits(-0.0) == 0x8000)
        // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10: ties go to the even one.
        #expect(HalfFloat.float(HalfFloat.bits(1 + 0x1p-11)) == 1)
        #expect(HalfFloat.float(HalfFloat.bits(1 + 3 * 0x1p-11)) == 1 + 0x1p-9)
        #expect(HalfFloat.float(HalfFloat.bits(1 / 3)) == Float(0.333_251_953_125))
        #expect(HalfFloat.bits(65_520) == 0x7C00)
        #expect(HalfFloat.bits(-1e10) == 0xFC00)
        #expect(HalfFloat.float(HalfFloat.bits(.infinity)) == .infinity)
        #expect(HalfFloat.float(HalfFloat.bits(.nan)).isNaN)
        // Below half the smallest subnormal is zero; just above it, the smallest subnormal.
        #expect(HalfFloat.bits(0x1p-25) == 0)
        #expect(HalfFloat.bits(0x1.01p-25) == 1)
        // Every one of the 63,488 finite halves converts to a float and back to itself.
        for bits in UInt16.min...UInt16.max where bits & 0x7C00 != 0x7C00 {
            #expect(HalfFloat.bits(HalfFloat.float(bits)) == bits)
        }
    }

    @Test("A tensor with a bad name, shape or value count, or a bad alignment, is refused and nothing is added")
    func invalidTensors() throws {
        var writer = GGUFWriter()
        try writer.addTensor("a", dimensions: [2], values: [1, 2])
        let before = writer.data()
        let attempts: [(String, [Int], Int)] = [
            ("", [1], 1),
            (String(repeating: "x", count: 64), [1], 1),
            ("a", [2], 2),
            ("b", [], 0),
            ("c", [1, 1, 1, 1, 1], 1),
            ("d", [2, 0], 0),
            ("e", [-1], 1),
            ("f", [2, 3], 5),
            ("g", [Int.max, 2], 0),
        ]
        for (name, dimensions, count) in attempts {
            #expect(throws: SDKException.self, "\(name) \(dimensions)") {
                try writer.addTensor(name, dimensions: dimensions, values: [Float](repeating: 0, count: count))
            }
        }
        for alignment in [0, 3, -32, 1 << 21] {
            let error = #expect(throws: SDKException.self) { try writer.setAlignment(alignment) }
            #expect(error?.code == .invalidInput)
        }
        #expect(writer.data() == before)
    }

    @Test("Writing replaces a file whole, and a write that fails leaves no file behind")
    func atomicWrite() throws {
        let folder = try temporaryFolder()
        let url = folder.appendingPathComponent("model.gguf")
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("first"))
        try writer.write(to: url)
        writer.set("general.architecture", .string("second"))
        try writer.write(to: url)
        #expect(try GGUFFile(contentsOf: url).architecture == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["model.gguf"])

        // A folder that cannot be made: its name is taken by the file.
        let impossible = url.appendingPathComponent("inner.gguf")
        let error = #expect(throws: SDKException.self) { try writer.write(to: impossible) }
        #expect(error?.code == .fileSystemError)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["model.gguf"])
    }

    @Test("Arrays nested deeper than any real file, or longer than the file, are refused without a crash")
    func hostileArrays() throws {
        func header(_ value: (inout Data) -> Void) -> Data {
            var data = Data("GGUF".utf8)
            func append<T: FixedWidthInteger>(_ v: T) {
                withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) }
            }
            append(UInt32(3))
            append(UInt64(0))
            append(UInt64(1))
            append(UInt64(3))
            data.append(contentsOf: Array("key".utf8))
            value(&data)
            return data
        }
        func append<T: FixedWidthInteger>(_ v: T, to data: inout Data) {
            withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) }
        }
        let deep = header { data in
            for _ in 0..<10_000 {
                append(UInt32(9), to: &data)
                append(UInt32(9), to: &data)
                append(UInt64(1), to: &data)
            }
        }
        let long = header { data in
            append(UInt32(9), to: &data)
            append(UInt32(8), to: &data)
            append(UInt64(1) << 40, to: &data)
        }
        let folder = try temporaryFolder()
        for (name, bytes) in [("deep", deep), ("long", long)] {
            let url = folder.appendingPathComponent("\(name).gguf")
            try bytes.write(to: url)
            let error = #expect(throws: SDKException.self, "\(name)") { try GGUFFile(contentsOf: url) }
            #expect(error?.code == .modelCorrupted)
        }
    }
}
