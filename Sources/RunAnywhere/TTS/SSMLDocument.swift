#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Text marked up with the SSML subset the SDK speaks the same way on every voice.
///
/// The subset: `<speak>` (the root, optional), `<p>` and `<s>` (a paragraph or sentence, with a
/// pause after it), `<break time="500ms"/>` (or `strength="none|x-weak|weak|medium|strong|x-strong"`),
/// `<prosody rate pitch volume>` (nestable; `rate` as `x-slow…x-fast` or a percentage, `pitch`
/// as `x-low…x-high`, a relative percentage or semitones (`+2st`), `volume` as
/// `silent…x-loud`, a relative percentage or decibels (`-6dB`)), and
/// `<say-as interpret-as="characters">` (also `spell-out`: spoken letter by letter). The five
/// XML entities and numeric character references are understood. Anything else (another
/// element, an unknown attribute or value, a tag left open) is an `invalid_ssml` error naming
/// its line and column.
///
/// ```swift
/// let options = TTSOptions(ssml: true)
/// let output = try await sdk.synthesize(
///     #"<speak>Hello.<break time="400ms"/><prosody rate="slow">Code <say-as interpret-as="characters">RA7</say-as>.</prosody></speak>"#,
///     options: options)
/// ```
public struct SSMLDocument: Sendable, Equatable {
    /// One stretch of the document: text to speak with its prosody, or a pause.
    public enum Segment: Sendable, Equatable {
        /// Text, with rate, pitch and volume as factors of the request's own (1 = unchanged).
        case text(String, rate: Float, pitch: Float, volume: Float)
        /// Silence of this many seconds.
        case pause(TimeInterval)
    }

    /// The segments in speaking order; neighbouring pauses are merged.
    public let segments: [Segment]

    /// Parses SSML.
    ///
    /// - Throws: `.invalidSSML` naming the line and column of the first problem.
    public init(parsing source: String) throws(SDKException) {
        var parser = Parser(source)
        segments = try parser.parse()
    }

    /// The text spoken, without markup (letters of `say-as` spelled out).
    public var plainText: String {
        segments.compactMap { if case .text(let text, _, _, _) = $0 { text } else { nil } }.joined(separator: " ")
    }

    /// The longest pause one `<break>` may ask for.
    public static let maximumBreak: TimeInterval = 10

    /// How deep elements may nest. Real documents nest a few levels; each open element costs
    /// more memory than the three bytes of `<p>`, so unbounded nesting would be a multiple of the input.
    public static let maximumDepth = 64

    /// The most silence a whole document may ask for. Twenty characters of `<break time="10s"/>`
    /// are ten seconds of samples; without a total, a page of them would be hours of audio.
    public static let maximumTotalPause: TimeInterval = 600
}

extension SSMLDocument {
    private struct Prosody {
        var rate: Float = 1
        var pitch: Float = 1
        var volume: Float = 1
    }

    /// Reads the document as UTF-8 bytes: all markup is ASCII, and a byte array costs one byte per
    /// byte of input where an array of `Character`s costs sixteen.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var segments: [Segment] = []
        var open: [(name: String, prosody: Prosody, spell: Bool, at: Int)] = []
        var text: [UInt8] = []
        var silence: TimeInterval = 0

        init(_ source: String) { bytes = Array(source.utf8) }

        var prosody: Prosody { open.last?.prosody ?? Prosody() }
        var spelling: Bool { open.last?.spell ?? false }

        mutating func parse() throws(SDKException) -> [Segment] {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "<") {
                    try tag()
                } else if bytes[index] == UInt8(ascii: "&") {
                    text.append(contentsOf: try entity())
                } else {
                    text.append(bytes[index])
                    index += 1
                }
            }
            if let unclosed = open.last {
                throw error("<\(unclosed.name)> is never closed", at: unclosed.at)
            }
            flush()
            return segments
        }

        // MARK: Markup

        private mutating func tag() throws(SDKException) {
            let start = index
            if starts(with: "<!--") {
                guard let end = find("-->", from: index + 4) else {
                    throw error("a comment is never closed", at: start)
                }
                index = end + 3
                return
            }
            if starts(with: "<?") {
                guard let end = find("?>", from: index + 2) else { throw error("<? is never closed", at: start) }
                index = end + 2
                return
            }
            index += 1
            let closing = at("/")
            if closing { index += 1 }
            let name = readName()
            guard !name.isEmpty else { throw error("a tag needs a name", at: start) }
            var attributes: [String: String] = [:]
            while true {
                skipSpace()
                guard index < bytes.count else { throw error("<\(name) is never closed", at: start) }
                if at(">") {
                    index += 1
                    break
                }
                if starts(with: "/>") {
                    index += 2
                    try element(name, attributes: attributes, closing: closing, empty: true, at: start)
                    return
                }
                let attributeStart = index
                let attribute = readName()
                guard !attribute.isEmpty else {
                    throw error("unexpected '\(character(at: index))' in <\(name)>", at: index)
                }
                skipSpace()
                guard at("=") else { throw error("attribute \(attribute) needs a value", at: attributeStart) }
                index += 1
                skipSpace()
                guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw error("the value of \(attribute) must be quoted", at: index)
                }
                index += 1
                var value: [UInt8] = []
                while index < bytes.count, bytes[index] != quote {
                    if at("&") {
                        value.append(contentsOf: try entity())
                    } else {
                        value.append(bytes[index])
                        index += 1
                    }
                }
                guard index < bytes.count else {
                    throw error("the value of \(attribute) is never closed", at: attributeStart)
                }
                index += 1
                guard attributes[attribute] == nil else {
                    throw error("\(attribute) is given twice", at: attributeStart)
                }
                attributes[attribute] = String(decoding: value, as: UTF8.self)
            }
            try element(name, attributes: attributes, closing: closing, empty: false, at: start)
        }

        private mutating func element(
            _ name: String,
            attributes: [String: String],
            closing: Bool,
            empty: Bool,
            at position: Int
        ) throws(SDKException) {
            if closing {
                guard attributes.isEmpty else { throw error("a closing tag takes no attributes", at: position) }
                guard let top = open.last, top.name == name else {
                    throw error(
                        open.last.map { "</\(name)> closes nothing: <\($0.name)> is open" }
                            ?? "</\(name)> closes nothing",
                        at: position
                    )
                }
                flush()
                open.removeLast()
                if name == "p" { try pause(0.5) }
                if name == "s" { try pause(0.25) }
                return
            }
            let allowed: [String: Set<String>] = [
                "speak": ["version", "xmlns", "xml:lang", "xmlns:xsi", "xsi:schemaLocation"],
                "p": [], "s": [], "break": ["time", "strength"], "prosody": ["rate", "pitch", "volume"],
                "say-as": ["interpret-as", "format"],
            ]
            guard let known = allowed[name] else {
                throw error("<\(name)> is not in the SSML subset the SDK speaks", at: position)
            }
            if let unknown = attributes.keys.sorted().first(where: { !known.contains($0) }) {
                throw error("<\(name)> takes no attribute \(unknown)", at: position)
            }
            if name == "speak", !(open.isEmpty && segments.isEmpty && text.allSatisfy(Self.isSpace)) {
                throw error("<speak> must be the root", at: position)
            }
            if !empty, name != "break", open.count >= SSMLDocument.maximumDepth {
                throw error("elements nest more than \(SSMLDocument.maximumDepth) deep", at: position)
            }
            flush()
            switch name {
            case "break":
                guard empty else { throw error("<break> must be empty (<break/>)", at: position) }
                try pause(try breakDuration(attributes, at: position))
                return
            case "prosody":
                var next = prosody
                if let rate = attributes["rate"] {
                    guard let factor = Self.rate(rate) else {
                        throw error("rate \"\(rate)\" is not understood", at: position)
                    }
                    next.rate *= factor
                }
                if let pitch = attributes["pitch"] {
                    guard let factor = Self.pitch(pitch) else {
                        throw error("pitch \"\(pitch)\" is not understood", at: position)
                    }
                    next.pitch *= factor
                }
                if let volume = attributes["volume"] {
                    guard let factor = Self.volume(volume) else {
                        throw error("volume \"\(volume)\" is not understood", at: position)
                    }
                    next.volume *= factor
                }
                if !empty { open.append((name, next, spelling, position)) }
            case "say-as":
                let kind = attributes["interpret-as"] ?? ""
                guard kind == "characters" || kind == "spell-out" else {
                    throw error(
                        "say-as interpret-as=\"\(kind)\" is not supported (characters, spell-out)",
                        at: position
                    )
                }
                if !empty { open.append((name, prosody, true, position)) }
            default:
                if !empty { open.append((name, prosody, spelling, position)) }
            }
        }

        private func breakDuration(
            _ attributes: [String: String],
            at position: Int
        ) throws(SDKException) -> TimeInterval {
            if let time = attributes["time"]?.trimmedSpaces().lowercased() {
                let seconds: Double?
                if time.hasSuffix("ms") {
                    seconds = Double(time.dropLast(2)).map { $0 / 1000 }
                } else if time.hasSuffix("s") {
                    seconds = Double(time.dropLast())
                } else {
                    seconds = nil
                }
                guard let seconds, seconds.isFinite, seconds >= 0, seconds <= SSMLDocument.maximumBreak else {
                    throw error(
                        "break time \"\(time)\" must be 0 to \(Int(SSMLDocument.maximumBreak))s, e.g. 500ms",
                        at: position
                    )
                }
                return seconds
            }
            let strengths: [String: TimeInterval] = [
                "none": 0, "x-weak": 0.1, "weak": 0.2, "medium": 0.4, "strong": 0.7, "x-strong": 1.2,
            ]
            let strength = attributes["strength"] ?? "medium"
            guard let seconds = strengths[strength] else {
                throw error("break strength \"\(strength)\" is not understood", at: position)
            }
            return seconds
        }

        // MARK: Values

        static func rate(_ value: String) -> Float? {
            let words: [String: Float] = [
                "x-slow": 0.5, "slow": 0.75, "medium": 1, "default": 1, "fast": 1.3, "x-fast": 1.7,
            ]
            if let word = words[value] { return word }
            return percentage(value, relative: false)
        }

        static func pitch(_ value: String) -> Float? {
            let words: [String: Float] = [
                "x-low": 0.7, "low": 0.85, "medium": 1, "default": 1, "high": 1.2, "x-high": 1.4,
            ]
            if let word = words[value] { return word }
            if value.hasSuffix("st"), let semitones = Float(value.dropLast(2)), abs(semitones) <= 24 {
                return pow(2, semitones / 12)
            }
            return percentage(value, relative: true)
        }

        static func volume(_ value: String) -> Float? {
            let words: [String: Float] = [
                "silent": 0, "x-soft": 0.3, "soft": 0.6, "medium": 1, "default": 1, "loud": 1.4, "x-loud": 1.8,
            ]
            if let word = words[value] { return word }
            if value.lowercased().hasSuffix("db"), let decibels = Float(value.dropLast(2)), abs(decibels) <= 40 {
                return pow(10, decibels / 20)
            }
            return percentage(value, relative: true)
        }

        /// `150%` (or `+20%` / `-20%` when relative) as a factor.
        private static func percentage(_ value: String, relative: Bool) -> Float? {
            guard value.hasSuffix("%"), let number = Float(value.dropLast()), number.isFinite else { return nil }
            let signed = value.hasPrefix("+") || value.hasPrefix("-")
            let factor = relative && signed ? 1 + number / 100 : number / 100
            return factor > 0 && factor <= 10 ? factor : nil
        }

        // MARK: Text

        private mutating func flush() {
            let words = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isWhitespace)
                .joined(separator: " ")
            text.removeAll(keepingCapacity: true)
            guard !words.isEmpty else { return }
            let spoken = spelling ? Self.spelledOut(words) : words
            let current = prosody
            segments.append(.text(spoken, rate: current.rate, pitch: current.pitch, volume: current.volume))
        }

        /// Letters and digits one by one, so every voice says them as characters.
        static func spelledOut(_ text: String) -> String {
            text.filter { !$0.isWhitespace }.map(String.init).joined(separator: " ")
        }

        /// Adds silence, merged with a pause just before it, and keeps the document's total in
        /// bounds as it goes.
        private mutating func pause(_ seconds: TimeInterval) throws(SDKException) {
            guard seconds > 0 else { return }
            if case .pause(let previous) = segments.last {
                let merged = min(previous + seconds, SSMLDocument.maximumBreak)
                segments[segments.count - 1] = .pause(merged)
                silence += merged - previous
            } else {
                segments.append(.pause(seconds))
                silence += seconds
            }
            guard silence <= SSMLDocument.maximumTotalPause else {
                throw SDKException(
                    .invalidSSML,
                    "The SSML asks for more than \(Int(SSMLDocument.maximumTotalPause)) s of pauses in all"
                )
            }
        }

        /// The UTF-8 of the entity at `index`.
        private mutating func entity() throws(SDKException) -> [UInt8] {
            let start = index
            guard let end = find(";", from: index), end - index <= 10 else {
                throw error("& starts no entity (write &amp;)", at: start)
            }
            let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let character = named[name] { return Array(character.utf8) }
            if name.hasPrefix("#") {
                let digits = name.dropFirst()
                let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                if let value, let scalar = Unicode.Scalar(value), value != 0 { return Array(String(scalar).utf8) }
            }
            throw error("&\(name); is not an entity", at: start)
        }

        // MARK: Reading

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private func at(_ ascii: Unicode.Scalar) -> Bool { peek() == UInt8(ascii: ascii) }

        /// The character that starts at byte `position`, for messages.
        private func character(at position: Int) -> Character {
            String(decoding: bytes[position...].prefix(4), as: UTF8.self).first ?? "?"
        }

        private func starts(with prefix: String) -> Bool {
            bytes[index...].starts(with: prefix.utf8)
        }

        private func find(_ needle: String, from start: Int) -> Int? {
            let wanted = Array(needle.utf8)
            var position = start
            while position + wanted.count <= bytes.count {
                if bytes[position..<(position + wanted.count)].elementsEqual(wanted) { return position }
                position += 1
            }
            return nil
        }

        /// XML's markup spaces: space, tab, line feed and carriage return.
        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        /// A name of ASCII letters, digits and `-_:.`; every name in the subset is one.
        private mutating func readName() -> String {
            let start = index
            while let byte = peek(),
                (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: ".")
            {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private mutating func skipSpace() {
            while let byte = peek(), Self.isSpace(byte) { index += 1 }
        }

        /// An error naming the line and column (from 1, in characters) of byte `position`.
        func error(_ problem: String, at position: Int) -> SDKException {
            var line = 1
            var column = 1
            for character in String(decoding: bytes[..<min(position, bytes.count)], as: UTF8.self) {
                if character.isNewline {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return SDKException(
                .invalidSSML,
                "SSML: \(problem) (line \(line), column \(column))",
                recovery: "See SSMLDocument for the subset the SDK speaks"
            )
        }
    }
}
