#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes GGUF files (version 3): typed metadata and F32 or F16 tensors, aligned as ggml
/// expects, so the SDK's tests and tools can make LoRA adapters, projectors and small
/// networks without Python.
///
/// ```swift
/// var writer = GGUFWriter()
/// writer.set("general.architecture", .string("llama"))
/// writer.set("general.type", .string("adapter"))
/// try writer.addTensor("blk.0.attn_q.weight.lora_a", dimensions: [576, 8], values: a)
/// try writer.write(to: url)
/// ```
///
/// What it writes, ``GGUFFile`` reads back value for value, and llama.cpp loads.
package struct GGUFWriter: Sendable {
    /// How tensor data is stored.
    package enum TensorType: UInt32, Sendable {
        case f32 = 0
        case f16 = 1

        var bytesPerValue: Int { self == .f32 ? 4 : 2 }
    }

    private struct Tensor: Sendable {
        var name: String
        var dimensions: [Int]
        var type: TensorType
        var values: [Float]
    }

    /// ggml's longest tensor name (`GGML_MAX_NAME` less its terminating NUL).
    static let maximumNameLength = 63
    /// ggml's most tensor dimensions (`GGML_MAX_DIMS`).
    static let maximumDimensions = 4

    /// Where tensor data is placed: a power of two, 32 unless changed.
    package private(set) var alignment: Int = 32
    private var keys: [String] = []
    private var values: [String: GGUFValue] = [:]
    private var tensors: [Tensor] = []

    /// An empty file.
    package init() {}

    /// Sets a metadata value; a key set again keeps its place and takes the new value.
    package mutating func set(_ key: String, _ value: GGUFValue) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
    }

    /// Places tensor data on multiples of `alignment` bytes (a power of two from 1 to
    /// 2^20), written as `general.alignment` unless it is the default 32.
    package mutating func setAlignment(_ alignment: Int) throws(SDKException) {
        guard alignment > 0, alignment <= 1 << 20, alignment & (alignment - 1) == 0 else {
            throw SDKException(.invalidInput, "GGUF alignment must be a power of two up to 2^20 (got \(alignment))")
        }
        self.alignment = alignment
        if alignment == 32 {
            if values.removeValue(forKey: "general.alignment") != nil { keys.removeAll { $0 == "general.alignment" } }
        } else {
            set("general.alignment", .uint32(UInt32(alignment)))
        }
    }

    /// Adds a tensor of `dimensions` (fastest-varying first, ggml's `ne`; numpy's shape
    /// reversed) holding `values` in that order, stored as `type`.
    ///
    /// Throws `.invalidInput` for a name that is empty, too long or already used, for no
    /// dimensions, more than four or one below 1, or for a value count that does not match.
    package mutating func addTensor(
        _ name: String,
        dimensions: [Int],
        values: [Float],
        type: TensorType = .f32
    ) throws(SDKException) {
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength else {
            throw SDKException(
                .invalidInput,
                "A GGUF tensor name must have 1 to \(Self.maximumNameLength) bytes ('\(name)')"
            )
        }
        guard !tensors.contains(where: { $0.name == name }) else {
            throw SDKException(.invalidInput, "The GGUF file already has a tensor '\(name)'")
        }
        guard (1...Self.maximumDimensions).contains(dimensions.count), dimensions.allSatisfy({ $0 > 0 }) else {
            throw SDKException(
                .invalidInput,
                "Tensor '\(name)' needs 1 to \(Self.maximumDimensions) dimensions of at least 1 (got \(dimensions))"
            )
        }
        var count = 1
        for dimension in dimensions {
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow else { throw SDKException(.invalidInput, "Tensor '\(name)' is too large: \(dimensions)") }
            count = product
        }
        guard count == values.count else {
            throw SDKException(
                .invalidInput,
                "Tensor '\(name)' of \(dimensions) holds \(count) values, but \(values.count) were given"
            )
        }
        tensors.append(Tensor(name: name, dimensions: dimensions, type: type, values: values))
    }

    /// The file's bytes.
    package func data() -> Data {
        var out = Data()
        out.append(contentsOf: Array("GGUF".utf8))
        Self.append(UInt32(3), to: &out)
        Self.append(UInt64(tensors.count), to: &out)
        Self.append(UInt64(keys.count), to: &out)
        for key in keys {
            Self.append(key, to: &out)
            // Every key in `keys` has a value: `set` adds both.
            let value = values[key]!
            Self.append(value.kind.rawValue, to: &out)
            Self.append(value, to: &out)
        }
        var offsets: [Int] = []
        var offset = 0
        for tensor in tensors {
            offsets.append(offset)
            offset = Self.padded(offset + tensor.values.count * tensor.type.bytesPerValue, to: alignment)
        }
        for (tensor, offset) in zip(tensors, offsets) {
            Self.append(tensor.name, to: &out)
            Self.append(UInt32(tensor.dimensions.count), to: &out)
            for dimension in tensor.dimensions { Self.append(UInt64(dimension), to: &out) }
            Self.append(tensor.type.rawValue, to: &out)
            Self.append(UInt64(offset), to: &out)
        }
        out.append(Data(count: Self.padded(out.count, to: alignment) - out.count))
        let dataStart = out.count
        for (tensor, offset) in zip(tensors, offsets) {
            out.append(Data(count: dataStart + offset - out.count))
            switch tensor.type {
            case .f32:
                for value in tensor.values { Self.append(value.bitPattern, to: &out) }
            case .f16:
                for value in tensor.values { Self.append(HalfFloat.bits(value), to: &out) }
            }
        }
        out.append(Data(count: Self.padded(out.count, to: alignment) - out.count))
        return out
    }

    /// Writes the file at `url` whole or not at all (through a temporary file renamed into
    /// place); throws `.fileSystemError` when it cannot.
    package func write(to url: URL) throws(SDKException) {
        try FileSystem.atomicWrite(data(), to: url)
    }

    private static func padded(_ size: Int, to alignment: Int) -> Int {
        (size + alignment - 1) / alignment * alignment
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(_ string: String, to out: inout Data) {
        append(UInt64(string.utf8.count), to: &out)
        out.append(contentsOf: Array(string.utf8))
    }

    private static func append(_ value: GGUFValue, to out: inout Data) {
        switch value {
        case .uint8(let v): append(v, to: &out)
        case .int8(let v): append(v, to: &out)
        case .uint16(let v): append(v, to: &out)
        case .int16(let v): append(v, to: &out)
        case .uint32(let v): append(v, to: &out)
        case .int32(let v): append(v, to: &out)
        case .float32(let v): append(v.bitPattern, to: &out)
        case .bool(let v): append(UInt8(v ? 1 : 0), to: &out)
        case .string(let v): append(v, to: &out)
        case .uint64(let v): append(v, to: &out)
        case .int64(let v): append(v, to: &out)
        case .float64(let v): append(v.bitPattern, to: &out)
        case .list(let array):
            append(array.elementType.rawValue, to: &out)
            append(UInt64(array.count), to: &out)
            if let encoded = array.encodedItems {
                out.append(encoded)  // as read: the same bytes, none decoded
            } else {
                for item in (try? array.items()) ?? [] { append(item, to: &out) }
            }
        }
    }
}
