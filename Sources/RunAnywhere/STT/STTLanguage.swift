/// A spoken language by its base BCP-47 code, as the original SDK names it;
/// ``STTOptions/language`` takes ``bcp47Code`` (`"en"`, `"de"`).
///
/// ```swift
/// let language = STTLanguage.fromBcp47("en-US")   // bcp47Code "en"
/// let options = STTOptions(language: language.bcp47Code)
/// ```
public struct STTLanguage: Sendable, Hashable, Codable {
    /// The base language code, lowercased (`en`, `zh`); empty for ``unspecified``.
    public let bcp47Code: String

    /// No language given, or one that is not a BCP-47 tag.
    public static let unspecified = STTLanguage(bcp47Code: "")
    /// Detect the language from the audio.
    public static let auto = STTLanguage(bcp47Code: "auto")

    /// The language of `tag`, a BCP-47 tag (`en`, `en-US`, `zh_Hant`): its primary subtag;
    /// ``unspecified`` unless that is 2 or 3 ASCII letters (or `auto`) and every other
    /// subtag 1 to 8 letters or digits.
    public static func fromBcp47(_ tag: String) -> STTLanguage {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let primary = subtags.first?.lowercased() else { return .unspecified }
        if primary == "auto", subtags.count == 1 { return .auto }
        guard (2...3).contains(primary.count),
            primary.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { return .unspecified }
        for subtag in subtags.dropFirst() {
            guard (1...8).contains(subtag.count),
                subtag.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                })
            else { return .unspecified }
        }
        return STTLanguage(bcp47Code: primary)
    }
}
