#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A GGUF metadata value with its exact type, as the file stores it.
///
/// Widths are kept (a `uint32` stays a `uint32`), so what the reader gives back can be
/// written again byte for byte, and arrays carry their element type even when empty.
package enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8)
    case int8(Int8)
    case uint16(UInt16)
    case int16(Int16)
    case uint32(UInt32)
    case int32(Int32)
    case float32(Float)
    case bool(Bool)
    case string(String)
    /// An array (build one with ``array(elementType:_:)``). Read from a file, its items stay
    /// encoded in the file's bytes until asked for, so no count in a header can make the reader
    /// allocate.
    case list(GGUFArray)
    case uint64(UInt64)
    case int64(Int64)
    case float64(Double)

    /// GGUF's value type codes (`enum gguf_type`).
    package enum Kind: UInt32, Sendable, Equatable, CaseIterable {
        case uint8 = 0
        case int8 = 1
        case uint16 = 2
        case int16 = 3
        case uint32 = 4
        case int32 = 5
        case float32 = 6
        case bool = 7
        case string = 8
        case array = 9
        case uint64 = 10
        case int64 = 11
        case float64 = 12

        /// Bytes one value takes, for the fixed-width kinds.
        var width: Int? {
            switch self {
            case .uint8, .int8, .bool: 1
            case .uint16, .int16: 2
            case .uint32, .int32, .float32: 4
            case .uint64, .int64, .float64: 8
            case .string, .array: nil
            }
        }
    }

    /// The value's type code.
    package var kind: Kind {
        switch self {
        case .uint8: .uint8
        case .int8: .int8
        case .uint16: .uint16
        case .int16: .int16
        case .uint32: .uint32
        case .int32: .int32
        case .float32: .float32
        case .bool: .bool
        case .string: .string
        case .list: .array
        case .uint64: .uint64
        case .int64: .int64
        case .float64: .float64
        }
    }

    /// An integer of any width, when it fits an `Int`.
    package var intValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// A number of any type, integers included.
    package var doubleValue: Double? {
        switch self {
        case .float32(let v): Double(v)
        case .float64(let v): v
        default: intValue.map(Double.init)
        }
    }

    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// An array's items, decoded now; `nil` for other values or items the file no longer holds.
    package var arrayValue: [GGUFValue]? { if case .list(let array) = self { try? array.items() } else { nil } }

    /// An array of `items`, all of `elementType` (nested arrays have `.array` items).
    package static func array(elementType: Kind, _ items: [GGUFValue]) -> GGUFValue {
        .list(GGUFArray(elementType: elementType, items: items))
    }
}
