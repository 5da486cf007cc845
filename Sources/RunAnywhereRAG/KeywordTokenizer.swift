@_spi(Backend) import RunAnywhere
// Canonical decomposition (NFD), which the standard library has but does not publish; swift-
// foundation reaches it the same way. Foundation's own folding is full Foundation's on Linux.
@_spi(_Unicode) import Swift

/// Splits text into the terms SQLite's FTS5 makes of it with
/// `tokenize='porter unicode61 remove_diacritics 2'`: runs of letters, digits and
/// private-use characters, lowercased, without diacritics, then Porter-stemmed.
///
/// The in-memory keyword index uses it so that its BM25 scores equal the FTS5 table's.
/// Outside ASCII, a Latin letter loses its diacritics by canonical decomposition, without its
/// nonspacing marks; a test checks the tokens against SQLite on Latin, Greek, Cyrillic,
/// Japanese and Korean words.
enum KeywordTokenizer {
    /// Calls `body` with each token of `text`, lowercased and without diacritics but not
    /// stemmed, as UTF-8 bytes.
    static func forEachWord(in text: String, _ body: (inout [UInt8]) -> Void) {
        var token: [UInt8] = []
        token.reserveCapacity(32)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                let byte = UInt8(value)
                if byte >= 0x61 && byte <= 0x7A || byte >= 0x30 && byte <= 0x39 {
                    token.append(byte)
                } else if byte >= 0x41 && byte <= 0x5A {
                    token.append(byte + 0x20)
                } else if !token.isEmpty {
                    body(&token)
                    token.removeAll(keepingCapacity: true)
                }
                continue
            }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                // SQLite removes accents from Latin letters only (Greek keeps its tonos).
                let latin = value < 0x250 || (0x1E00...0x1EFF).contains(value)
                token.append(contentsOf: (latin ? withoutDiacritics(scalar) : String(scalar)).lowercased().utf8)
            case .nonspacingMark where !token.isEmpty:
                // A combining accent inside a word: removed, the word goes on.
                continue
            default:
                if !token.isEmpty {
                    body(&token)
                    token.removeAll(keepingCapacity: true)
                }
            }
        }
        if !token.isEmpty { body(&token) }
    }

    /// `scalar` decomposed, its nonspacing marks (accents) left out: "é" is "e".
    private static func withoutDiacritics(_ scalar: Unicode.Scalar) -> String {
        var base = String.UnicodeScalarView()
        for part in String(scalar)._nfd where part.properties.generalCategory != .nonspacingMark {
            base.append(part)
        }
        return String(base)
    }

    /// Calls `body` with each stemmed term of `text`, in order, repeats included.
    static func forEachTerm(in text: String, _ body: (String) -> Void) {
        forEachWord(in: text) { word in
            PorterStemmer.stem(&word)
            body(String(decoding: word, as: UTF8.self))
        }
    }

    /// The stemmed terms of `text`, in order, repeats included.
    static func terms(_ text: String) -> [String] {
        var terms: [String] = []
        forEachTerm(in: text) { terms.append($0) }
        return terms
    }
}
