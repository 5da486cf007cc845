import RunAnywhereGBNF

/// The string `format`s the SDK enforces, each with a grammar for generation and a check for
/// validation. The grammar writes a subset of what the check accepts (upper-case `T` and
/// `Z`, seconds below 60, a host name of at most three labels, an e-mail address of bounded
/// parts, so that a small model cannot write one forever), so generated text always passes.
/// Other formats are annotations, as JSON Schema 2020-12 has it: neither enforced nor refused.
enum JSONStringFormat: String, CaseIterable, Sendable {
    case date
    case time
    case dateTime = "date-time"
    case uuid
    case email
    case uri
    case hostname
    case ipv4

    /// The grammar for the format's text with its length in `minLength...maxLength`.
    enum Grammar {
        /// Exactly the format's texts of a suitable length.
        case exact(GBNFExpression)
        /// No text of the format has a suitable length.
        case impossible(lengths: String)
        /// The format's texts, whatever their length: the grammar cannot also count. The
        /// flags tell which bound it leaves out.
        case lengthNotEnforced(GBNFExpression, minimum: Bool, maximum: Bool)
    }

    /// The rule names the formats define.
    static let ruleNames: [String] =
        allCases.map(\.rawValue) + ["time-base", "time-offset", "date-leap-year", "host-label", "uri-character"]

    /// The shortest and longest texts the grammar writes.
    private var lengths: (min: Int, max: Int?) {
        switch self {
        case .date: (10, 10)
        case .time: (9, 21)
        case .dateTime: (20, 32)
        case .uuid: (36, 36)
        case .email: (5, 290)
        case .uri: (3, nil)
        case .hostname: (1, 191)
        case .ipv4: (7, 15)
        }
    }

    func grammar(minLength: Int, maxLength: Int?, rules: inout GBNFRuleSet) -> Grammar {
        let (shortest, longest) = lengths
        let description = longest.map { $0 == shortest ? "\($0)" : "\(shortest) to \($0)" } ?? "\(shortest) or more"
        if let maxLength, maxLength < shortest { return .impossible(lengths: description) }
        if let longest, minLength > longest { return .impossible(lengths: description) }
        let full = fullGrammar(rules: &rules)
        if minLength <= shortest, longest.map({ $0 <= maxLength ?? Int.max }) ?? (maxLength == nil) {
            return .exact(full)
        }
        switch self {
        case .time, .dateTime:
            let extra = self == .dateTime ? 11 : 0
            let prefix: [GBNFExpression] = self == .dateTime ? [Self.define(.date, &rules), .literal("T")] : []
            guard let time = Self.time(minLength: minLength - extra, maxLength: maxLength.map { $0 - extra }, &rules)
            else { return .impossible(lengths: description) }
            return .exact(.concat(prefix + [time]))
        case .ipv4:
            return .exact(Self.ipv4(minLength: minLength, maxLength: maxLength ?? Int.max))
        default:
            let maximumLeftOut = maxLength.map { maximum in longest.map { $0 > maximum } ?? true } ?? false
            return .lengthNotEnforced(full, minimum: minLength > shortest, maximum: maximumLeftOut)
        }
    }

    private func fullGrammar(rules: inout GBNFRuleSet) -> GBNFExpression {
        Self.define(self, &rules)
    }

    /// The format's rule, defined on first use.
    @discardableResult
    private static func define(_ format: JSONStringFormat, _ rules: inout GBNFRuleSet) -> GBNFExpression {
        let name = format.rawValue
        if !rules.isDefined(name) {
            rules.define(name, format.body(&rules))
        }
        return .rule(name)
    }

    private func body(_ rules: inout GBNFRuleSet) -> GBNFExpression {
        switch self {
        case .date:
            let leapYear = Self.helper("date-leap-year", &rules) {
                .anyOf([
                    .concat([
                        .repeating(.digit, min: 2, max: 2),
                        .anyOf([
                            .concat([Self.set("02468"), Self.set("48")]),
                            .concat([Self.set("13579"), Self.set("26")]),
                            .concat([Self.set("2468"), .literal("0")]),
                        ]),
                    ]),
                    .concat([
                        .anyOf([
                            .concat([Self.set("02468"), Self.set("048")]),
                            .concat([Self.set("13579"), Self.set("26")]),
                        ]),
                        .literal("00"),
                    ]),
                ])
            }
            let day28 = GBNFExpression.anyOf([
                .concat([.literal("0"), Self.range("1", "9")]),
                .concat([.literal("1"), .digit]),
                .concat([.literal("2"), Self.range("0", "8")]),
            ])
            let day30 = GBNFExpression.anyOf([day28, .literal("29"), .literal("30")])
            let day31 = GBNFExpression.anyOf([day30, .literal("31")])
            return .anyOf([
                .concat([
                    .repeating(.digit, min: 4, max: 4), .literal("-"),
                    .anyOf([
                        .concat([
                            .anyOf([
                                .concat([.literal("0"), Self.set("13578")]), .concat([.literal("1"), Self.set("02")]),
                            ]),
                            .literal("-"), day31,
                        ]),
                        .concat([
                            .anyOf([.concat([.literal("0"), Self.set("469")]), .literal("11")]), .literal("-"), day30,
                        ]),
                        .concat([.literal("02-"), day28]),
                    ]),
                ]),
                .concat([leapYear, .literal("-02-29")]),
            ])
        case .time:
            return Self.time(minLength: 0, maxLength: nil, &rules) ?? .empty
        case .dateTime:
            return .concat([Self.define(.date, &rules), .literal("T"), Self.define(.time, &rules)])
        case .uuid:
            let groups = [8, 4, 4, 4, 12].map { GBNFExpression.repeating(.hexDigit, min: $0, max: $0) }
            var elements: [GBNFExpression] = []
            for (index, group) in groups.enumerated() {
                if index > 0 { elements.append(.literal("-")) }
                elements.append(group)
            }
            return .concat(elements)
        case .email:
            // Bounded parts, so that a small model cannot write one address forever.
            let atom = GBNFExpression.repeating(
                .characters(UnicodeScalarSet(characters: "_%+-").union(Self.alphanumerics)),
                min: 1,
                max: 32
            )
            let label = Self.hostLabel(&rules)
            return .concat([
                atom, .repeating(.concat([.literal("."), atom]), min: 0, max: 2), .literal("@"), label,
                .repeating(.concat([.literal("."), label]), min: 1, max: 2),
            ])
        case .uri:
            let character = Self.helper("uri-character", &rules) {
                .anyOf([
                    .characters(Self.alphanumerics.union(UnicodeScalarSet(characters: "-._~:/?#@!$&'()*+,;="))),
                    .concat([.literal("%"), .hexDigit, .hexDigit]),
                ])
            }
            return .concat([
                .characters(Self.letters),
                .repeating(
                    .characters(Self.alphanumerics.union(UnicodeScalarSet(characters: "+.-"))),
                    min: 0,
                    max: nil
                ),
                .literal(":"), .repeating(character, min: 1, max: nil),
            ])
        case .hostname:
            let label = Self.hostLabel(&rules)
            return .concat([label, .repeating(.concat([.literal("."), label]), min: 0, max: 2)])
        case .ipv4:
            return Self.ipv4(minLength: 0, maxLength: Int.max)
        }
    }

    private static let letters = UnicodeScalarSet([0x41...0x5A, 0x61...0x7A])
    private static let alphanumerics = letters.union(.digits)

    private static func set(_ characters: String) -> GBNFExpression {
        .characters(UnicodeScalarSet(characters: characters))
    }

    private static func range(_ low: Unicode.Scalar, _ high: Unicode.Scalar) -> GBNFExpression {
        .characters(UnicodeScalarSet([low.value...high.value]))
    }

    private static func helper(
        _ name: String,
        _ rules: inout GBNFRuleSet,
        _ body: () -> GBNFExpression
    ) -> GBNFExpression {
        if !rules.isDefined(name) { rules.define(name, body()) }
        return .rule(name)
    }

    private static func hostLabel(_ rules: inout GBNFRuleSet) -> GBNFExpression {
        helper("host-label", &rules) {
            .concat([
                .characters(alphanumerics),
                .optional(
                    .concat([
                        .repeating(
                            .characters(alphanumerics.union(UnicodeScalarSet(characters: "-"))),
                            min: 0,
                            max: 61
                        ),
                        .characters(alphanumerics),
                    ])
                ),
            ])
        }
    }

    private static let twoDigitHour = GBNFExpression.anyOf([
        .concat([set("01"), .digit]), .concat([.literal("2"), range("0", "3")]),
    ])
    private static let sixty = GBNFExpression.concat([range("0", "5"), .digit])

    /// `HH:MM:SS[.fraction](Z|+HH:MM)`, with a length in range: the length decides how many
    /// fraction digits there are and which offset form is used.
    private static func time(minLength: Int, maxLength: Int?, _ rules: inout GBNFRuleSet) -> GBNFExpression? {
        let base = helper("time-base", &rules) {
            .concat([twoDigitHour, .literal(":"), sixty, .literal(":"), sixty])
        }
        let numericOffset = GBNFExpression.concat([set("+-"), twoDigitHour, .literal(":"), sixty])
        let upper = maxLength ?? Int.max
        var alternatives: [GBNFExpression] = []
        for (offset, offsetLength) in [(GBNFExpression.literal("Z"), 1), (numericOffset, 6)] {
            // Lengths 8 + (0 or 1 + digits) + offset, digits from 1 to 6.
            let withoutFraction = 8 + offsetLength
            let bareFits = withoutFraction >= minLength && withoutFraction <= upper
            let lowestDigits = max(1, minLength - withoutFraction - 1)
            let highestDigits = min(6, upper - withoutFraction - 1)
            var fractions: [GBNFExpression] = []
            if bareFits { fractions.append(.empty) }
            if lowestDigits <= highestDigits {
                fractions.append(.concat([.literal("."), .repeating(.digit, min: lowestDigits, max: highestDigits)]))
            }
            if !fractions.isEmpty {
                alternatives.append(.concat([base, .anyOf(fractions), offset]))
            }
        }
        guard !alternatives.isEmpty else { return nil }
        if minLength <= 9, upper >= 21 {
            let offset = helper("time-offset", &rules) { .anyOf([.literal("Z"), numericOffset]) }
            return .concat([
                base, .optional(.concat([.literal("."), .repeating(.digit, min: 1, max: 6)])), offset,
            ])
        }
        return .anyOf(alternatives)
    }

    /// Dotted quads whose text length is in range, octets without leading zeros.
    private static func ipv4(minLength: Int, maxLength: Int) -> GBNFExpression {
        let octets: [GBNFExpression] = [
            .digit,
            .concat([range("1", "9"), .digit]),
            .anyOf([
                .concat([.literal("1"), .digit, .digit]), .concat([.literal("2"), range("0", "4"), .digit]),
                .concat([.literal("25"), range("0", "5")]),
            ]),
        ]
        let anyOctet = GBNFExpression.anyOf(octets)
        if minLength <= 7, maxLength >= 15 {
            return .concat([anyOctet, .repeating(.concat([.literal("."), anyOctet]), min: 3, max: 3)])
        }
        var alternatives: [GBNFExpression] = []
        for a in 1...3 {
            for b in 1...3 {
                for c in 1...3 {
                    for d in 1...3 where a + b + c + d + 3 >= minLength && a + b + c + d + 3 <= maxLength {
                        alternatives.append(
                            .concat([
                                octets[a - 1], .literal("."), octets[b - 1], .literal("."), octets[c - 1],
                                .literal("."),
                                octets[d - 1],
                            ])
                        )
                    }
                }
            }
        }
        return .anyOf(alternatives)
    }

    // MARK: Validation

    /// Whether `text` is in the format.
    func isValid(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        switch self {
        case .date: return Self.isDate(scalars[...])
        case .time: return Self.isTime(scalars[...])
        case .dateTime:
            guard scalars.count > 11, scalars[10] == "T" || scalars[10] == "t" else { return false }
            return Self.isDate(scalars[..<10]) && Self.isTime(scalars[11...])
        case .uuid:
            guard scalars.count == 36 else { return false }
            return scalars.enumerated().allSatisfy { index, scalar in
                [8, 13, 18, 23].contains(index) ? scalar == "-" : Self.isHex(scalar)
            }
        case .email: return Self.isEmail(text)
        case .uri: return Self.isURI(scalars)
        case .hostname: return Self.isHostname(text)
        case .ipv4: return Self.isIPv4(text)
        }
    }

    private static func isHex(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && Character(scalar).isHexDigit
    }

    private static func number(_ scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        guard !scalars.isEmpty, scalars.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return scalars.reduce(0) { $0 * 10 + Int($1.value - 0x30) }
    }

    private static func isDate(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        let s = Array(scalars)
        guard s.count == 10, s[4] == "-", s[7] == "-", let year = number(s[0..<4]), let month = number(s[5..<7]),
            let day = number(s[8..<10])
        else { return false }
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    private static func isTime(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        let s = Array(scalars)
        guard s.count >= 9, s[2] == ":", s[5] == ":", let hour = number(s[0..<2]), let minute = number(s[3..<5]),
            let second = number(s[6..<8]), hour <= 23, minute <= 59, second <= 60
        else { return false }
        var index = 8
        if s[index] == "." {
            index += 1
            let start = index
            while index < s.count, ("0"..."9").contains(s[index]) { index += 1 }
            guard index > start else { return false }
        }
        guard index < s.count else { return false }
        var offsetMinutes = 0
        switch s[index] {
        case "Z", "z":
            guard index + 1 == s.count else { return false }
        case "+", "-":
            guard index + 6 == s.count, s[index + 3] == ":", let offsetHour = number(s[(index + 1)..<(index + 3)]),
                let offsetMinute = number(s[(index + 4)..<(index + 6)]), offsetHour <= 23, offsetMinute <= 59
            else { return false }
            offsetMinutes = (offsetHour * 60 + offsetMinute) * (s[index] == "+" ? 1 : -1)
        default:
            return false
        }
        guard second == 60 else { return true }
        // A leap second is only ever the last second of a UTC day.
        let utc = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
        return utc == 23 * 60 + 59
    }

    private static func isHostname(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isLabel)
    }

    private static func isLabel(_ label: Substring) -> Bool {
        guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-" else { return false }
        return label.unicodeScalars.allSatisfy { alphanumerics.contains($0.value) || $0 == "-" }
    }

    private static func isEmail(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        let atext = alphanumerics.union(UnicodeScalarSet(characters: "!#$%&'*+/=?^_`{|}~-"))
        let atoms = local.split(separator: ".", omittingEmptySubsequences: false)
        guard atoms.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { atext.contains($0.value) } }) else {
            return false
        }
        if domain.hasPrefix("["), domain.hasSuffix("]") {
            return isIPv4(String(domain.dropFirst().dropLast()))
        }
        return !domain.isEmpty && domain.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isLabel)
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                let digits = Array(part.unicodeScalars)
                guard (1...3).contains(digits.count), let value = number(digits[...]), value <= 255 else {
                    return false
                }
                return digits.count == 1 || digits[0] != "0"
            }
    }

    private static func isURI(_ scalars: [Unicode.Scalar]) -> Bool {
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, letters.contains(scalars[0].value) else {
            return false
        }
        let schemeCharacters = alphanumerics.union(UnicodeScalarSet(characters: "+.-"))
        guard scalars[1..<colon].allSatisfy({ schemeCharacters.contains($0.value) }) else { return false }
        let allowed = alphanumerics.union(UnicodeScalarSet(characters: "-._~:/?#[]@!$&'()*+,;="))
        var index = colon + 1
        while index < scalars.count {
            if scalars[index] == "%" {
                guard index + 2 < scalars.count, isHex(scalars[index + 1]), isHex(scalars[index + 2]) else {
                    return false
                }
                index += 3
            } else {
                guard allowed.contains(scalars[index].value) else { return false }
                index += 1
            }
        }
        return true
    }
}
