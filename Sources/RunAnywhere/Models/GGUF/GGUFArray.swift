#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A GGUF metadata array: its element type, its count, and its items, either built in memory
/// or still encoded in the bytes of the file it was read from.
///
/// A header can claim an array of a billion `uint8`s in a file of a gigabyte; as values that
/// would be some 24 GiB. So ``GGUFFile`` only walks an array to find where it ends and keeps its
/// bytes (a slice of the mapped file, not a copy); the items are decoded when asked for, by
/// whoever needs them (no reader of the SDK's does today, but ``GGUFWriter`` copies the bytes).
package struct GGUFArray: Sendable, Equatable {
    /// The type of every item.
    package let elementType: GGUFValue.Kind
    /// How many items it has.
    package let count: Int
    private let storage: Storage

    private enum Storage: Sendable {
        case items([GGUFValue])
        /// The items' encoding as in the file (after the element type and the count).
        case encoded(Data)
    }

    /// An array of `items`, which must all be of `elementType`.
    package init(elementType: GGUFValue.Kind, items: [GGUFValue]) {
        self.elementType = elementType
        self.count = items.count
        self.storage = .items(items)
    }

    /// An array whose `count` items of `elementType` are encoded in `bytes`, which the reader
    /// has walked: every length in them is within them.
    init(elementType: GGUFValue.Kind, count: Int, encoded bytes: Data) {
        self.elementType = elementType
        self.count = count
        self.storage = .encoded(bytes)
    }

    /// The items' bytes as a GGUF file stores them, when the array was read from one.
    var encodedItems: Data? {
        if case .encoded(let bytes) = storage { bytes } else { nil }
    }

    /// The items, decoded now for an array read from a file.
    ///
    /// - Throws: `.modelCorrupted` when the bytes no longer decode (the file changed on disk
    ///   since it was read).
    package func items() throws(SDKException) -> [GGUFValue] {
        switch storage {
        case .items(let items):
            return items
        case .encoded(let bytes):
            var reader = GGUFFile.Reader(data: bytes)
            do {
                var items: [GGUFValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try reader.value(kind: elementType, depth: 1)) }
                return items
            } catch {
                throw SDKException(.modelCorrupted, "A GGUF metadata array no longer decodes (\(error))")
            }
        }
    }

    /// Same element type and same items, however each side holds them.
    package static func == (lhs: GGUFArray, rhs: GGUFArray) -> Bool {
        guard lhs.elementType == rhs.elementType, lhs.count == rhs.count else { return false }
        if let left = lhs.encodedItems, let right = rhs.encodedItems { return left == right }
        return (try? lhs.items()) == (try? rhs.items())
    }
}
