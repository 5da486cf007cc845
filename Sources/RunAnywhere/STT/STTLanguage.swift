/// A spoken language by its BCP-47 tag, as the original SDK names it; ``STTOptions/language``
/// takes the tag's primary subtag (`"en"`, `"de"`), which ``code`` gives.
///
/// ```swift
/// let language = STTLanguage.fromBcp47("en-US")   // code "en"
/// let options = STTOptions(language: language?.code)
/// ```
public struct STTLanguage: Sendable, Hashable, Codable {
    /// The full tag as given, e.g. `en-US`.
    public let bcp47Code: String

    /// The primary language subtag, lowercased: what the speech engines take.
    public var code: String {
        String(bcp47Code.prefix { $0 != "-" && $0 != "_" }).lowercased()
    }

    /// The language of `tag`, a BCP-47 tag (`en`, `en-US`, `zh_Hant`); `nil` unless its
    /// primary subtag is 2 or 3 ASCII letters and every other subtag 1 to 8 letters or digits.
    public static func fromBcp47(_ tag: String) -> STTLanguage? {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let primary = subtags.first, (2...3).contains(primary.count),
            primary.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { return nil }
        for subtag in subtags.dropFirst() {
            guard (1...8).contains(subtag.count),
                subtag.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                })
            else { return nil }
        }
        return STTLanguage(bcp47Code: tag.replacing("_", with: "-"))
    }
}
