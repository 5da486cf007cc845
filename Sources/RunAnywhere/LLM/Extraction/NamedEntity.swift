/// A named entity found in a text (``RunAnywhereSDK/extractEntities(from:types:options:)``).
public struct NamedEntity: Sendable, Codable, Equatable, Hashable {
    /// The entity exactly as the text writes it.
    public var text: String
    /// Its type: one of the types asked for, e.g. `person`.
    public var entityType: String
    /// Where it starts in the text, in characters.
    public var startOffset: Int
    /// Where it ends (exclusive), in characters.
    public var endOffset: Int
    /// How likely the model finds this type for this span, against the other types asked for
    /// (0 to 1, from its own token probabilities).
    public var confidence: Double

    /// Its length in characters, never negative; `Int32` as the original SDK's (offsets here
    /// are `Int`, so a span longer than `Int32.max` characters reads as `Int32.max`).
    public var length: Int32 { Int32(clamping: max(0, endOffset - startOffset)) }

    /// Creates an entity.
    public init(text: String, entityType: String, startOffset: Int, endOffset: Int, confidence: Double) {
        self.text = text
        self.entityType = entityType
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.confidence = confidence
    }

    /// Creates an entity from other number types, e.g. the original SDK's `Int32` offsets and
    /// `Float` confidence.
    public init<Offset: BinaryInteger, Confidence: BinaryFloatingPoint>(
        text: String,
        entityType: String,
        startOffset: Offset,
        endOffset: Offset,
        confidence: Confidence
    ) {
        self.init(
            text: text,
            entityType: entityType,
            startOffset: Int(clamping: startOffset),
            endOffset: Int(clamping: endOffset),
            confidence: Double(confidence)
        )
    }

    /// The range of `source` the entity spans, when its offsets are inside it.
    public func range(in source: String) -> Range<String.Index>? {
        guard startOffset >= 0, startOffset <= endOffset, endOffset <= source.count else { return nil }
        let start = source.index(source.startIndex, offsetBy: startOffset)
        return start..<source.index(start, offsetBy: endOffset - startOffset)
    }

    /// Places each span the model named at its next occurrence in `source`, in the model's
    /// order, so a repeated name maps to its successive mentions. A span that does not occur
    /// from there on (the model changed or invented it) is dropped.
    static func locate(_ spans: [(text: String, type: String)], in source: String) -> [(NamedEntity, Int)] {
        var located: [(NamedEntity, Int)] = []
        var searchFrom: [String: String.Index] = [:]
        for (index, span) in spans.enumerated() where !span.text.isEmpty {
            let from = searchFrom[span.text] ?? source.startIndex
            guard let range = source[from...].firstRange(of: span.text) else { continue }
            searchFrom[span.text] = range.upperBound
            let start = source.distance(from: source.startIndex, to: range.lowerBound)
            let entity = NamedEntity(
                text: String(source[range]),
                entityType: span.type,
                startOffset: start,
                endOffset: start + span.text.count,
                confidence: 0
            )
            // One entity per span of text: the first type given to it wins.
            if !located.contains(where: { $0.0.startOffset == start && $0.0.endOffset == entity.endOffset }) {
                located.append((entity, index))
            }
        }
        return located
    }
}
