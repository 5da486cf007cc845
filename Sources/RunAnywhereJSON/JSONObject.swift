/// A JSON object's members in the order they were written. Setting an existing key keeps
/// its place; a new key goes last.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The members, in order.
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Each key's place, once there are more than `indexThreshold` members. Smaller objects,
    /// the most common by far, are searched in order: a dictionary of their own made each one
    /// cost some 30 times its text in memory.
    private var index: [String: Int]?

    /// Members beyond which lookups go through `index`.
    private static let indexThreshold = 8

    /// An empty object.
    public init() {
        members = []
        index = nil
    }

    /// An object with these members; a repeated key keeps its first place and its last value.
    public init(_ members: [(String, JSONValue)]) {
        self.init()
        for (key, value) in members { self[key] = value }
    }

    /// An object, members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The value of `key`; setting `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    reindex()
                }
            } else if let newValue {
                members.append((key, newValue))
                if index != nil {
                    index?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    reindex()
                }
            }
        }
    }

    /// Where `key` is among the members.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    /// The index for the members as they are now, or none for a small object.
    private mutating func reindex() {
        index =
            members.count > Self.indexThreshold
            ? Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) }) : nil
    }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }
    /// How many members there are.
    public var count: Int { members.count }
    /// Whether there are no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Iterates over the members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    /// Objects are equal when they have the same members, whatever their order (as in JSON).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the members independently of their order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(combined)
    }
}
