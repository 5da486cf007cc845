/// A strict JSON parser (RFC 8259) that keeps member order and tells integers from other
/// numbers. Foundation's parser does neither, and its errors name no position.
///
/// Nesting is limited so that hostile input cannot exhaust the stack.
package struct JSONParser {
    /// The deepest nesting of arrays and objects it takes.
    package static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    /// Objects and arrays still allowed: each costs some ten times its text, where numbers and
    /// strings cost about their own size.
    private var containersLeft = Int.max

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    private init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// The JSON value that starts at byte `start` of `bytes`, with the offset just past it;
    /// nil when no value starts there or it has more than `maximumContainers` objects and
    /// arrays. Text after the value is not looked at.
    package static func value(
        in bytes: [UInt8],
        at start: Int,
        maximumContainers: Int = .max
    ) -> (value: JSONValue, end: Int)? {
        var parser = JSONParser(bytes: bytes, position: start)
        parser.containersLeft = maximumContainers
        guard let value = try? parser.parseValue() else { return nil }
        return (value, parser.position)
    }

    /// Objects and arrays allowed in `count` bytes of text from outside: one per 64 bytes, and
    /// 1,024 in any case. Numbers and text parse at about their size; each object or array costs
    /// some ten times its text, so a budget by size bounds what hostile text can cost.
    package static func containerBudget(forBytes count: Int) -> Int {
        1024 + count / 64
    }

    /// Parses one JSON value that fills the whole text (whitespace aside), with at most
    /// `maximumContainers` objects and arrays in it.
    package static func parse(_ text: String, maximumContainers: Int = .max) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(text)
        parser.containersLeft = maximumContainers
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of the text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[position])))'")
        }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw error("expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw error("expected ':' after the member name") }
            position += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
            } else if peek(UInt8(ascii: "}")) {
                position += 1
                depth -= 1
                return .object(object)
            } else {
                throw error("expected ',' or '}' in the object")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        position += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            position += 1
            depth -= 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                position += 1
            } else if peek(UInt8(ascii: "]")) {
                position += 1
                depth -= 1
                return .array(values)
            } else {
                throw error("expected ',' or ']' in the array")
            }
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run = position
        func flush(_ parser: JSONParser, to end: Int) {
            scalars.append(contentsOf: String(decoding: parser.bytes[run..<end], as: UTF8.self).unicodeScalars)
        }
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                flush(self, to: position)
                position += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                flush(self, to: position)
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
                run = position
                continue
            }
            position += 1
        }
        throw error("unterminated string")
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xD800..<0xDC00).contains(high) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate in \\u escape") }
            position += 2
            let low = try parseHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate in \\u escape") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape") }
        return scalar
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw error("invalid \\u escape") }
            value = value * 16 + UInt32(digit)
        }
        position += 4
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        var integral = true
        if peek(UInt8(ascii: "-")) { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("leading zero in a number") }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            integral = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("digits expected after '.'") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            integral = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("digits expected in exponent") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if integral, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .number(value)
    }

    private mutating func expect(_ word: String) throws(JSONSyntaxError) {
        let utf8 = Array(word.utf8)
        guard position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 else {
            throw error("invalid literal (expected '\(word)')")
        }
        position += utf8.count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        containersLeft -= 1
        guard containersLeft >= 0 else { throw error("more objects and arrays than its size allows") }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count,
            bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09
        {
            position += 1
        }
    }

    private func peek(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }
    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func error(_ problem: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONSyntaxError(message: "Invalid JSON at line \(line), column \(column): \(problem)")
    }
}

/// Text that is not JSON, or JSON past the parser's limits.
package struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// What is wrong and where: "Invalid JSON at line 1, column 9: …".
    package let message: String

    /// The message.
    package var description: String { message }
}
