@_spi(Backend) import RunAnywhere

/// Martin Porter's stemming algorithm as SQLite's FTS5 `porter` tokenizer runs it, so that
/// the in-memory keyword index and the FTS5 table agree on every term.
///
/// It works on bytes: tokens shorter than 3 or longer than 64 bytes pass unchanged, and any
/// byte that is not an ASCII vowel counts as a consonant.
enum PorterStemmer {
    static let maxTokenBytes = 64

    /// Stems a lowercased token in place.
    static func stem(_ word: inout [UInt8]) {
        guard word.count >= 3, word.count <= maxTokenBytes else { return }
        var w = Word(bytes: word)
        w.step1a()
        if w.step1b() {
            if !w.step1b2() {
                let last = w.last
                if !Word.isVowel(last, yIsVowel: false), last != .l, last != .s, last != .z,
                    last == w.bytes[w.count - 2]
                {
                    w.count -= 1
                } else if w.measureIsOne(w.count), w.endsConsonantVowelConsonant(w.count) {
                    w.append(.e)
                }
            }
        }
        if w.last == .y, w.hasVowel(w.count - 1) {
            w.bytes[w.count - 1] = .i
        }
        w.step2()
        w.step3()
        w.step4()
        if w.last == .e,
            w.measureAboveOne(w.count - 1)
                || (w.measureIsOne(w.count - 1) && !w.endsConsonantVowelConsonant(w.count - 1))
        {
            w.count -= 1
        }
        if w.count > 1, w.last == .l, w.bytes[w.count - 2] == .l, w.measureAboveOne(w.count - 1) {
            w.count -= 1
        }
        word = Array(w.bytes[0..<w.count])
    }

    /// A stem being cut: `bytes` with only the first `count` in use.
    private struct Word {
        var bytes: [UInt8]
        var count: Int

        init(bytes: [UInt8]) {
            self.bytes = bytes
            self.count = bytes.count
        }

        var last: UInt8 { bytes[count - 1] }

        mutating func append(_ byte: UInt8) {
            if count < bytes.count {
                bytes[count] = byte
            } else {
                bytes.append(byte)
            }
            count += 1
        }

        static func isVowel(_ c: UInt8, yIsVowel: Bool) -> Bool {
            c == .a || c == .e || c == .i || c == .o || c == .u || (yIsVowel && c == .y)
        }

        /// Skips one vowel run then one consonant: the index after it, or 0 when the stem
        /// `bytes[from..<end]` has no such pair.
        func vowelConsonant(from start: Int, to end: Int, previousConsonant: Bool) -> Int {
            var consonant = previousConsonant
            var i = start
            while i < end {
                consonant = !Self.isVowel(bytes[i], yIsVowel: consonant)
                if !consonant { break }
                i += 1
            }
            i += 1
            while i < end {
                consonant = !Self.isVowel(bytes[i], yIsVowel: consonant)
                if consonant { return i + 1 }
                i += 1
            }
            return 0
        }

        /// Porter's m > 0 for the stem `bytes[0..<end]`.
        func measureAboveZero(_ end: Int) -> Bool {
            vowelConsonant(from: 0, to: end, previousConsonant: false) != 0
        }

        /// Porter's m > 1.
        func measureAboveOne(_ end: Int) -> Bool {
            let first = vowelConsonant(from: 0, to: end, previousConsonant: false)
            return first != 0 && vowelConsonant(from: first, to: end, previousConsonant: true) != 0
        }

        /// Porter's m = 1.
        func measureIsOne(_ end: Int) -> Bool {
            let first = vowelConsonant(from: 0, to: end, previousConsonant: false)
            return first != 0 && vowelConsonant(from: first, to: end, previousConsonant: true) == 0
        }

        /// Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y.
        func endsConsonantVowelConsonant(_ end: Int) -> Bool {
            let c = bytes[end - 1]
            if c == .w || c == .x || c == .y { return false }
            var mask = 0
            var consonant = false
            for i in 0..<end {
                consonant = !Self.isVowel(bytes[i], yIsVowel: consonant)
                mask = ((mask << 1) + (consonant ? 1 : 0)) & 0x7
            }
            return mask == 0x5
        }

        /// Porter's *v*: the stem has a vowel (y after the first letter counts).
        func hasVowel(_ end: Int) -> Bool {
            (0..<end).contains { Self.isVowel(bytes[$0], yIsVowel: $0 > 0) }
        }

        func endsWith(_ suffix: StaticString) -> Bool {
            let length = suffix.utf8CodeUnitCount
            guard count > length else { return false }
            return suffix.withUTF8Buffer { s in
                (0..<length).allSatisfy { bytes[count - length + $0] == s[$0] }
            }
        }

        mutating func replace(_ suffix: StaticString, with replacement: StaticString) {
            count -= suffix.utf8CodeUnitCount
            replacement.withUTF8Buffer { r in
                for byte in r { append(byte) }
            }
        }

        /// Applies the first rule whose suffix matches, if its condition holds; later rules
        /// are not tried once a suffix matched (Porter's longest-match rule, as FTS5 orders them).
        mutating func apply(
            _ rules: [(StaticString, StaticString)],
            when condition: (_ word: Word, _ stemEnd: Int, _ suffix: StaticString) -> Bool
        ) -> Bool {
            for (suffix, replacement) in rules where endsWith(suffix) {
                guard condition(self, count - suffix.utf8CodeUnitCount, suffix) else { return false }
                replace(suffix, with: replacement)
                return true
            }
            return false
        }

        mutating func step1a() {
            guard last == .s else { return }
            if bytes[count - 2] == .e {
                if (count > 4 && bytes[count - 4] == .s && bytes[count - 3] == .s)
                    || (count > 3 && bytes[count - 3] == .i)
                {
                    count -= 2
                } else {
                    count -= 1
                }
            } else if bytes[count - 2] != .s {
                count -= 1
            }
        }

        /// -eed, -ed, -ing; true when -ed or -ing was removed.
        mutating func step1b() -> Bool {
            if endsWith("eed") {
                if measureAboveZero(count - 3) { count -= 1 }
                return false
            }
            for suffix: StaticString in ["ed", "ing"] where endsWith(suffix) {
                guard hasVowel(count - suffix.utf8CodeUnitCount) else { return false }
                count -= suffix.utf8CodeUnitCount
                return true
            }
            return false
        }

        mutating func step1b2() -> Bool {
            apply([("at", "ate"), ("bl", "ble"), ("iz", "ize")]) { _, _, _ in true }
        }

        mutating func step2() {
            _ = apply(Self.step2Rules) { word, end, _ in word.measureAboveZero(end) }
        }

        mutating func step3() {
            _ = apply(Self.step3Rules) { word, end, _ in word.measureAboveZero(end) }
        }

        mutating func step4() {
            _ = apply(Self.step4Rules) { word, end, suffix in
                word.measureAboveOne(end)
                    && (suffix.description != "ion" || word.bytes[end - 1] == .s || word.bytes[end - 1] == .t)
            }
        }

        static let step2Rules: [(StaticString, StaticString)] = [
            ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
            ("logi", "log"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
            ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
            ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
        ]

        static let step3Rules: [(StaticString, StaticString)] = [
            ("ical", "ic"), ("ness", ""), ("icate", "ic"), ("iciti", "ic"), ("ful", ""), ("ative", ""),
            ("alize", "al"),
        ]

        /// -ion needs the stem to end in s or t; the condition checks that.
        static let step4Rules: [(StaticString, StaticString)] = [
            ("al", ""), ("ance", ""), ("ence", ""), ("er", ""), ("ic", ""), ("able", ""), ("ible", ""), ("ant", ""),
            ("ement", ""), ("ment", ""), ("ent", ""), ("ion", ""), ("ou", ""), ("ism", ""), ("ate", ""), ("iti", ""),
            ("ous", ""), ("ive", ""), ("ize", ""),
        ]
    }
}

extension UInt8 {
    fileprivate static let a = UInt8(ascii: "a")
    fileprivate static let e = UInt8(ascii: "e")
    fileprivate static let i = UInt8(ascii: "i")
    fileprivate static let l = UInt8(ascii: "l")
    fileprivate static let o = UInt8(ascii: "o")
    fileprivate static let s = UInt8(ascii: "s")
    fileprivate static let t = UInt8(ascii: "t")
    fileprivate static let u = UInt8(ascii: "u")
    fileprivate static let w = UInt8(ascii: "w")
    fileprivate static let x = UInt8(ascii: "x")
    fileprivate static let y = UInt8(ascii: "y")
    fileprivate static let z = UInt8(ascii: "z")
}
