#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the header of a GGUF file without loading its weights.
///
/// Used at import time to refuse what llama.cpp could not load, with a precise reason:
/// a wrong magic, an unsupported version, a header that runs past the end of the file,
/// or tensor data that the file is too short to hold (a truncated download). It also
/// yields every metadata value with its exact type (the registry keeps the architecture,
/// context length and chat template; LoRA checks an adapter's tensors against its model's),
/// and, for the networks the SDK runs itself, F32 or F16 tensors by name
/// (``floats(_:dimensions:)``). ``GGUFWriter`` writes what it reads.
///
/// No header, however hostile, can make it trap or allocate far beyond its size: sizes and
/// offsets are computed with overflow checks, the file is mapped (only the header's pages are
/// read), metadata arrays stay encoded in the file until asked for (``GGUFArray``), and the
/// tensor and key counts are bounded by the file and by caps no real model comes near.
package struct GGUFFile: Sendable {
    /// Where a tensor is and what it holds.
    package struct Tensor: Sendable {
        package var name: String
        /// Dimensions, fastest-varying first (ggml's `ne`).
        package var dimensions: [Int]
        /// The ggml type (0 is F32, 1 is F16).
        package var type: UInt32
        /// Offset from the start of the tensor data.
        package var offset: UInt64
        /// Values in the tensor (checked against overflow when the header was read).
        package var elements: UInt64
    }

    /// More tensors than any model has; a header claiming more is malformed.
    static let maximumTensorCount: UInt64 = 1 << 20
    /// More metadata keys than any model has (real ones have tens); a header claiming more is
    /// malformed. Each key costs about a hundred bytes in memory for thirteen in the file.
    static let maximumKeyCount: UInt64 = 1 << 16
    /// The smallest tensor entry: an empty name's length, a dimension count, one dimension,
    /// the type and the offset.
    static let smallestTensorEntry: UInt64 = 8 + 4 + 8 + 4 + 8

    static let magic: [UInt8] = Array("GGUF".utf8)

    /// Nested arrays deeper than this are malformed (no real file nests at all), which also
    /// bounds the reader's recursion.
    static let maximumArrayDepth = 8

    let version: UInt32
    let tensorCount: UInt64
    /// Every metadata value, by key.
    package let metadata: [String: GGUFValue]
    /// The metadata keys in file order.
    package let metadataKeys: [String]
    /// Bytes the file must have to hold every tensor whose type size is known.
    let requiredSize: UInt64
    let fileSize: UInt64
    /// Every tensor, in file order.
    package let tensors: [Tensor]
    /// Where tensor data starts in the file.
    private let dataStart: UInt64
    /// The file, mapped: tensors are read from it on demand.
    private let data: Data
    private let fileName: String

    package var architecture: String? { metadata["general.architecture"]?.stringValue }
    var name: String? { metadata["general.name"]?.stringValue }
    var contextLength: Int? { architecture.flatMap { metadata["\($0).context_length"]?.intValue } }
    var hasChatTemplate: Bool { metadata["tokenizer.chat_template"]?.stringValue?.isEmpty == false }

    /// Whether the file starts with the GGUF magic.
    static func hasMagic(_ url: URL) -> Bool {
        FileSystem.leadingBytes(of: url, count: 4) == magic
    }

    /// Parses the header; throws `.invalidModelFormat` or `.modelCorrupted` with the reason.
    package init(contentsOf url: URL) throws(SDKException) {
        let data: Data
        do {
            // Mapped for real: FoundationEssentials' `Data(contentsOf:options: .alwaysMapped)`
            // reads the whole file, a model's gigabytes, to look at its header.
            data = try FileSystem.mapped(url.path)
        } catch {
            throw SDKException(.modelFileNotFound, "Cannot read \(url.path)", underlying: error)
        }
        var reader = Reader(data: data)
        do {
            guard data.count >= 4, try reader.bytes(4) == Self.magic else {
                throw SDKException(
                    .invalidModelFormat,
                    "\(url.lastPathComponent) is not a GGUF file (wrong magic bytes)",
                    recovery: "Convert the model to GGUF for llama.cpp"
                )
            }
            version = try reader.u32()
            guard (2...3).contains(version) else {
                throw SDKException(
                    .invalidModelFormat,
                    "\(url.lastPathComponent) has unsupported GGUF version \(version)"
                )
            }
            tensorCount = try reader.u64()
            guard tensorCount <= Self.maximumTensorCount,
                tensorCount <= UInt64(data.count) / Self.smallestTensorEntry
            else {
                throw Reader.Failure.malformed("\(tensorCount) tensors")
            }
            let kvCount = try reader.u64()
            guard kvCount <= Self.maximumKeyCount else { throw Reader.Failure.malformed("\(kvCount) metadata keys") }
            var metadata: [String: GGUFValue] = [:]
            var keys: [String] = []
            var alignment: UInt64 = 32
            for _ in 0..<kvCount {
                let key = try reader.string()
                let value = try reader.value(kind: try reader.readKind(), depth: 0)
                if metadata.updateValue(value, forKey: key) == nil { keys.append(key) }
                if key == "general.alignment", let a = value.intValue {
                    // ggml requires a power of two; anything else (or a huge one) is malformed.
                    guard a > 0, a <= 1 << 20, a & (a - 1) == 0 else {
                        throw Reader.Failure.malformed("alignment \(a)")
                    }
                    alignment = UInt64(a)
                }
            }
            var dataEnd: UInt64 = 0
            var tensors: [Tensor] = []
            for _ in 0..<tensorCount {
                let name = try reader.string()
                let dims = try reader.u32()
                guard dims <= 8 else { throw Reader.Failure.malformed("tensor with \(dims) dimensions") }
                var elements: UInt64 = 1
                var dimensions: [Int] = []
                for _ in 0..<dims {
                    let size = try reader.u64()
                    let (product, overflow) = elements.multipliedReportingOverflow(by: size)
                    guard size <= UInt64(Int32.max), !overflow else {
                        throw Reader.Failure.malformed("tensor \(name) of \(size) × \(elements)")
                    }
                    dimensions.append(Int(size))
                    elements = product
                }
                // No file holds 2^56 values; refusing more keeps every size below exact.
                guard elements <= 1 << 56 else {
                    throw Reader.Failure.malformed("tensor \(name) of \(elements) values")
                }
                let type = try reader.u32()
                let offset = try reader.u64()
                let (end, overflow) = (Self.byteSize(type: type, elements: elements) ?? 0).addingReportingOverflow(
                    offset
                )
                // Beyond the file (or the address space) it cannot be: no need to add further.
                guard !overflow, end <= UInt64(data.count) else {
                    throw SDKException(
                        .modelCorrupted,
                        "\(url.lastPathComponent) is truncated or damaged: tensor \(name) would end at byte \(end) "
                            + "of its data, past the end of the \(data.count)-byte file",
                        recovery: "Download or copy the model again"
                    )
                }
                dataEnd = max(dataEnd, end)
                tensors.append(
                    Tensor(name: name, dimensions: dimensions, type: type, offset: offset, elements: elements)
                )
            }
            // Both terms are below the file's size (itself below 2^63), so neither sum overflows.
            let dataStart = (UInt64(reader.offset) + alignment - 1) / alignment * alignment
            self.dataStart = dataStart
            self.tensors = tensors
            self.data = data
            self.fileName = url.lastPathComponent
            self.metadata = metadata
            self.metadataKeys = keys
            self.fileSize = UInt64(data.count)
            self.requiredSize = dataStart + dataEnd
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(
                .modelCorrupted,
                "\(url.lastPathComponent) has a damaged GGUF header (\(error))",
                recovery: "The file is probably truncated: download or copy it again"
            )
        }
        guard requiredSize <= fileSize else {
            throw SDKException(
                .modelCorrupted,
                "\(url.lastPathComponent) is truncated: its tensors need \(requiredSize) bytes but the file has \(fileSize)",
                recovery: "Download or copy the model again"
            )
        }
    }

    /// The F32 or F16 tensor `name` with `dimensions` (fastest-varying first), as floats in
    /// file order.
    ///
    /// Throws `.modelCorrupted` when the file lacks it or it has another type or shape: a
    /// network run by the SDK checks its weights before it computes anything with them.
    package func floats(_ name: String, dimensions: [Int]) throws(SDKException) -> [Float] {
        guard let tensor = tensors.first(where: { $0.name == name }) else {
            throw SDKException(.modelCorrupted, "\(fileName) has no tensor \(name)")
        }
        guard tensor.type <= 1, tensor.dimensions == dimensions else {
            throw SDKException(
                .modelCorrupted,
                "\(fileName): tensor \(name) is type \(tensor.type) of \(tensor.dimensions), "
                    + "not F32 or F16 of \(dimensions)"
            )
        }
        let start = Int(dataStart + tensor.offset)
        let count = Int(tensor.elements)
        // The header check (requiredSize <= fileSize) guarantees the bytes are there.
        return data.withUnsafeBytes { raw in
            if tensor.type == 1 {
                return (0..<count).map { index in
                    HalfFloat.float(
                        UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: start + 2 * index, as: UInt16.self))
                    )
                }
            }
            return (0..<count).map { index in
                Float(
                    bitPattern: UInt32(
                        littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * index, as: UInt32.self)
                    )
                )
            }
        }
    }

    /// Bytes taken by `elements` values of a ggml type, for the types whose block layout
    /// is fixed (ggml.h `enum ggml_type`); `nil` for types this reader does not know.
    static func byteSize(type: UInt32, elements: UInt64) -> UInt64? {
        // A count this large is no tensor in any file; refusing it keeps the arithmetic below exact.
        guard elements <= 1 << 56 else { return nil }
        let layout: (block: UInt64, bytes: UInt64)? =
            switch type {
            case 0: (1, 4)  // F32
            case 1: (1, 2)  // F16
            case 2: (32, 18)  // Q4_0
            case 3: (32, 20)  // Q4_1
            case 6: (32, 22)  // Q5_0
            case 7: (32, 24)  // Q5_1
            case 8: (32, 34)  // Q8_0
            case 9: (32, 36)  // Q8_1
            case 10: (256, 84)  // Q2_K
            case 11: (256, 110)  // Q3_K
            case 12: (256, 144)  // Q4_K
            case 13: (256, 176)  // Q5_K
            case 14: (256, 210)  // Q6_K
            case 15: (256, 292)  // Q8_K
            case 20: (32, 18)  // IQ4_NL
            case 24: (1, 1)  // I8
            case 25: (1, 2)  // I16
            case 26: (1, 4)  // I32
            case 27: (1, 8)  // I64
            case 28: (1, 8)  // F64
            case 30: (1, 2)  // BF16
            default: nil
            }
        guard let layout else { return nil }
        return (elements + layout.block - 1) / layout.block * layout.bytes
    }

    /// A bounds-checked little-endian cursor over the mapped file (or an array's bytes in it).
    struct Reader {
        enum Failure: Error, CustomStringConvertible {
            case pastEnd(Int)
            case malformed(String)
            var description: String {
                switch self {
                case .pastEnd(let at): "header runs past the end of the file at byte \(at)"
                case .malformed(let what): what
                }
            }
        }

        let data: Data
        var offset = 0

        mutating func bytes(_ count: Int) throws -> [UInt8] {
            guard count >= 0, offset + count <= data.count else { throw Failure.pastEnd(offset) }
            defer { offset += count }
            let start = data.startIndex + offset
            return Array(data[start..<start + count])
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let size = MemoryLayout<T>.size
            guard offset + size <= data.count else { throw Failure.pastEnd(offset) }
            defer { offset += size }
            var value: T = 0
            _ = withUnsafeMutableBytes(of: &value) { dst in
                data.copyBytes(to: dst, from: (data.startIndex + offset)..<(data.startIndex + offset + size))
            }
            return T(littleEndian: value)
        }

        mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
        mutating func u64() throws -> UInt64 { try integer(UInt64.self) }

        /// Longer strings are malformed: the longest real ones, chat templates, are kilobytes.
        static let maximumStringLength: UInt64 = 64 << 20

        mutating func string() throws -> String {
            let length = try u64()
            guard length < Self.maximumStringLength else { throw Failure.malformed("string of \(length) bytes") }
            return String(decoding: try bytes(Int(length)), as: UTF8.self)
        }

        mutating func readKind() throws -> GGUFValue.Kind {
            let code = try u32()
            guard let kind = GGUFValue.Kind(rawValue: code) else {
                throw Failure.malformed("unknown metadata type \(code)")
            }
            return kind
        }

        /// Reads one metadata value of `kind`; `depth` counts the arrays it sits in.
        mutating func value(kind: GGUFValue.Kind, depth: Int) throws -> GGUFValue {
            switch kind {
            case .uint8: return .uint8(try integer(UInt8.self))
            case .int8: return .int8(try integer(Int8.self))
            case .uint16: return .uint16(try integer(UInt16.self))
            case .int16: return .int16(try integer(Int16.self))
            case .uint32: return .uint32(try integer(UInt32.self))
            case .int32: return .int32(try integer(Int32.self))
            case .float32: return .float32(Float(bitPattern: try integer(UInt32.self)))
            case .bool: return .bool(try integer(UInt8.self) != 0)
            case .string: return .string(try string())
            case .uint64: return .uint64(try u64())
            case .int64: return .int64(try integer(Int64.self))
            case .float64: return .float64(Double(bitPattern: try u64()))
            case .array:
                let (elementType, count) = try arrayHeader(depth: depth)
                let start = offset
                try skipItems(count, of: elementType, depth: depth + 1)
                let bytes = data[(data.startIndex + start)..<(data.startIndex + offset)]
                return .list(GGUFArray(elementType: elementType, count: count, encoded: bytes))
            }
        }

        /// An array's element type and count, checked against the bytes left.
        private mutating func arrayHeader(depth: Int) throws -> (GGUFValue.Kind, Int) {
            guard depth < GGUFFile.maximumArrayDepth else { throw Failure.malformed("arrays nested too deep") }
            let elementType = try readKind()
            let count = try u64()
            // Every item takes at least one byte of the file (a string or an array at least
            // its 8-byte length), so a count the rest of the file cannot hold is a lie.
            let smallest = UInt64(elementType.width ?? 8)
            guard count <= UInt64(data.count - offset) / smallest else {
                throw Failure.malformed("array of \(count) items")
            }
            return (elementType, Int(count))
        }

        /// Moves past `count` items of `kind`, checking every length, allocating nothing.
        private mutating func skipItems(_ count: Int, of kind: GGUFValue.Kind, depth: Int) throws {
            if let width = kind.width {
                // The count was checked against the bytes left, so this cannot overflow.
                guard offset + count * width <= data.count else { throw Failure.pastEnd(offset) }
                offset += count * width
                return
            }
            for _ in 0..<count {
                if kind == .string {
                    let length = try u64()
                    guard length < Self.maximumStringLength else {
                        throw Failure.malformed("string of \(length) bytes")
                    }
                    guard length <= UInt64(data.count - offset) else { throw Failure.pastEnd(offset) }
                    offset += Int(length)
                } else {
                    let (elementType, inner) = try arrayHeader(depth: depth)
                    try skipItems(inner, of: elementType, depth: depth + 1)
                }
            }
        }
    }
}

extension GGUFFile {
    /// The inspector a GGUF engine's backend registers for its framework: every model of
    /// `framework`, every `.gguf` model and every file with the GGUF magic must have a sound
    /// header, which also gives the model's context length, chat template and name. A lone
    /// `.gguf` file dropped into `models/<framework>/<id>/` becomes an LLM named after its folder.
    package static func inspector(for framework: InferenceFramework) -> ModelFileInspector {
        ModelFileInspector(
            name: "gguf",
            appliesTo: { model, file in model.framework == framework || model.format == .gguf || hasMagic(file) },
            inspect: { model, file throws(SDKException) in
                let header = try GGUFFile(contentsOf: file)
                var model = model
                model.format = .gguf
                model.contextLength = header.contextLength
                model.hasChatTemplate = header.hasChatTemplate
                if model.name == model.id, let name = header.name { model.name = name }
                return model
            },
            discover: { folder, id, found in
                guard found == framework,
                    let files = try? FileManager.default.contentsOfDirectory(atPath: folder.path),
                    let gguf = files.sorted().first(where: { $0.lowercased().hasSuffix(".gguf") })
                else { return nil }
                let path = folder.appendingPathComponent(gguf)
                let header = try? GGUFFile(contentsOf: path)
                return ModelInfo(
                    id: id,
                    name: header?.name ?? id,
                    category: .llm,
                    format: .gguf,
                    framework: framework,
                    localPath: path,
                    sizeBytes: FileSystem.allocatedSize(of: path),
                    contextLength: header?.contextLength,
                    hasChatTemplate: header?.hasChatTemplate
                )
            }
        )
    }
}
