import RunAnywhereJSON

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value found in free text and valid against a schema
/// (``RunAnywhere/extractStructuredOutput(from:schema:)``).
public struct ExtractedStructuredOutput: Sendable, Codable, Equatable {
    /// The value.
    public var value: JSONValue
    /// The JSON text as it appears in the input.
    public var json: String
    /// Where ``json`` starts in the input, in characters.
    public var startOffset: Int
    /// Where it ends (exclusive), in characters.
    public var endOffset: Int
    /// Whether it was inside a fenced code block (a block opened with three backticks and `json`).
    public var fenced: Bool

    /// Creates a result.
    public init(value: JSONValue, json: String, startOffset: Int, endOffset: Int, fenced: Bool) {
        self.value = value
        self.json = json
        self.startOffset = startOffset
        self.endOffset = endOffset
        self.fenced = fenced
    }

    /// Finds the first JSON value in `text` valid against `schema`: the contents of fenced code
    /// blocks first, then the whole text, then every object or array written bare in it.
    static func extract(from text: String, schema: JSONSchema) throws(SDKException) -> ExtractedStructuredOutput {
        let bytes = Array(text.utf8)
        var firstInvalid: (candidate: Candidate, violations: [JSONSchemaViolation])?
        var valid: Candidate?
        // One candidate at a time, each dropped once checked: only it and the first invalid
        // one are ever held, however many the text has.
        forEachCandidate(in: bytes) { candidate in
            let violations = schema.validate(candidate.value)
            if violations.isEmpty {
                valid = candidate
                return true
            }
            if firstInvalid == nil { firstInvalid = (candidate, violations) }
            return false
        }
        if let valid { return valid.result(in: text, bytes: bytes) }
        guard let firstInvalid else {
            throw SDKException(
                .invalidStructuredOutput,
                "The text holds no JSON value (\(bytes.count) bytes searched, fenced blocks and bare text)"
            )
        }
        let json = String(decoding: bytes[firstInvalid.candidate.start..<firstInvalid.candidate.end], as: UTF8.self)
        throw SDKException(
            .invalidStructuredOutput,
            "The JSON in the text does not match the schema: "
                + firstInvalid.violations.prefix(5).map(\.description).joined(separator: "; ")
                + " (in \(json.prefix(200)))"
        )
    }

    private struct Candidate {
        let value: JSONValue
        let start: Int
        let end: Int
        let fenced: Bool

        func result(in text: String, bytes: [UInt8]) -> ExtractedStructuredOutput {
            // Character offsets: the prefix's characters before the start and the end.
            let before = String(decoding: bytes[..<start], as: UTF8.self).count
            let json = String(decoding: bytes[start..<end], as: UTF8.self)
            return ExtractedStructuredOutput(
                value: value,
                json: json,
                startOffset: before,
                endOffset: before + json.count,
                fenced: fenced
            )
        }
    }

    /// Bare objects and arrays tried at most: bounds the work on hostile text (a megabyte of `[`).
    static let maximumBareAttempts = 512
    /// Fenced blocks tried at most: each is parsed from a copy of the text before its end, so a
    /// megabyte of backticks would otherwise copy the text hundreds of thousands of times.
    static let maximumFencedAttempts = 64

    /// Hands `visit` the JSON values in reading order of preference, each at most once per
    /// start, parsed one by one, until it returns `true`.
    private static func forEachCandidate(in bytes: [UInt8], _ visit: (Candidate) -> Bool) {
        var starts: Set<Int> = []
        /// Whether `visit` asked to stop.
        func offer(_ start: Int, limit: Int, fenced: Bool, whole: Bool) -> Bool {
            var position = start
            while position < limit, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
            let source = limit == bytes.count ? bytes : Array(bytes[..<limit])
            guard !starts.contains(position), position < limit,
                let (value, end) = JSONParser.value(
                    in: source,
                    at: position,
                    maximumContainers: JSONParser.containerBudget(forBytes: limit - position)
                )
            else { return false }
            // A fenced block or the whole text must be the value alone.
            if whole, bytes[end..<limit].contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return false }
            starts.insert(position)
            return visit(Candidate(value: value, start: position, end: end, fenced: fenced))
        }
        for block in fencedBlocks(in: bytes).prefix(maximumFencedAttempts)
        where offer(block.lowerBound, limit: block.upperBound, fenced: true, whole: true) {
            return
        }
        if offer(0, limit: bytes.count, fenced: false, whole: true) { return }
        let openers = bytes.indices.lazy.filter { bytes[$0] == UInt8(ascii: "{") || bytes[$0] == UInt8(ascii: "[") }
        for index in openers.prefix(maximumBareAttempts)
        where offer(index, limit: bytes.count, fenced: false, whole: false) {
            return
        }
    }

    /// The contents of fenced (three-backtick) blocks (after the info string's line), in order.
    private static func fencedBlocks(in bytes: [UInt8]) -> [Range<Int>] {
        let fence: [UInt8] = Array("```".utf8)
        var fences: [Int] = []
        var index = 0
        while index + 3 <= bytes.count {
            if Array(bytes[index..<index + 3]) == fence {
                fences.append(index)
                index += 3
                while index < bytes.count, bytes[index] == UInt8(ascii: "`") { index += 1 }
            } else {
                index += 1
            }
        }
        var blocks: [Range<Int>] = []
        var pair = 0
        while pair + 1 < fences.count {
            var start = fences[pair] + 3
            // Skip an info string (`json`) up to the end of the line.
            let letter =
                start < bytes.count && (bytes[start] | 0x20) >= UInt8(ascii: "a")
                && (bytes[start] | 0x20) <= UInt8(ascii: "z")
            while letter, start < fences[pair + 1], bytes[start] != 0x0A { start += 1 }
            blocks.append(min(start, fences[pair + 1])..<fences[pair + 1])
            pair += 2
        }
        return blocks
    }
}

// The original SDK's result fields. Its extraction reports a text without valid JSON as
// `success == false`; here that text throws `.invalidStructuredOutput` from the same `try`,
// so a result in hand is always a success.
extension ExtractedStructuredOutput {
    /// Always `true`: a text without valid JSON throws instead.
    public var success: Bool { true }

    /// The value as compact JSON bytes.
    public var parsedJson: Data { Data(value.jsonText().utf8) }

    /// The validation of the value: valid JSON, valid against the schema.
    public var validation: StructuredOutputValidation {
        StructuredOutputValidation(isValid: true, containsJSON: true)
    }

    /// Empty: failures throw, with their message.
    public var errorMessage: String { "" }
}
