/// A model named by where it lives on the Hugging Face hub, as llama.cpp's `-hf` and Ollama
/// name them:
///
/// - `hf.co/ORG/REPO/PATH.gguf`: that file of the repository;
/// - `hf.co/ORG/REPO:QUANT`: its GGUF file of that quantization (`Q4_K_M`, `Q8_0`, …);
/// - `hf.co/ORG/REPO`: its `Q4_K_M` file, else its only GGUF file.
///
/// `huggingface.co/` may stand for `hf.co/`, and `@REVISION` may follow the repository (a
/// branch, tag or commit; `main` by default): `hf.co/ORG/REPO@v1.0/PATH.gguf`.
///
/// ```swift
/// let reference = try ModelReference("hf.co/bartowski/SmolLM2-135M-Instruct-GGUF:Q8_0")
/// ```
public struct ModelReference: Sendable, Equatable, CustomStringConvertible {
    /// `ORG/REPO`.
    public var repository: String
    /// The file's path in the repository, when the reference names one.
    public var file: String?
    /// The quantization the file is picked by, when the reference names no file.
    public var quantization: String?
    /// The branch, tag or commit.
    public var revision: String

    /// The quantization picked when a reference names neither a file nor a quantization.
    public static let defaultQuantization = "Q4_K_M"

    /// Whether `text` is meant as a reference (it starts with `hf.co/` or `huggingface.co/`),
    /// whether or not it is a valid one.
    public static func isReference(_ text: String) -> Bool {
        let lower = text.lowercased()
        return prefixes.contains { lower.hasPrefix($0) }
    }

    private static let prefixes = ["hf.co/", "huggingface.co/"]

    /// Parses a reference.
    ///
    /// - Throws: `.invalidInput` naming what is wrong: not `hf.co/ORG/REPO…`, a name with
    ///   characters the hub does not allow, `..` or an empty path segment.
    public init(_ text: String) throws(SDKException) {
        func bad(_ why: String) -> SDKException {
            SDKException(
                .invalidInput,
                "'\(text.prefix(200))' is not a model reference: \(why)",
                recovery: "Write hf.co/ORG/REPO/FILE.gguf, or hf.co/ORG/REPO:QUANT (e.g. :Q4_K_M)"
            )
        }
        guard text.count <= 1024, let prefix = Self.prefixes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw bad("it does not start with hf.co/")
        }
        var rest = Substring(text.dropFirst(prefix.count))
        var quantization: String?
        if let colon = rest.lastIndex(of: ":") {
            quantization = String(rest[rest.index(after: colon)...])
            rest = rest[..<colon]
        }
        var segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count >= 2 else { throw bad("it names no ORG/REPO") }
        var revision = "main"
        if let at = segments[1].firstIndex(of: "@") {
            revision = String(segments[1][segments[1].index(after: at)...])
            segments[1] = String(segments[1][..<at])
        }
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        func isName(_ part: String) -> Bool {
            !part.isEmpty && part.count <= 128 && part != "." && part != ".."
                && part.allSatisfy(nameCharacters.contains)
        }
        guard isName(segments[0]), isName(segments[1]) else {
            throw bad("the organisation and repository are letters, digits, '.', '_' and '-'")
        }
        guard isName(revision) else { throw bad("the revision is letters, digits, '.', '_' and '-'") }
        let path = Array(segments.dropFirst(2))
        guard path.allSatisfy(isName) else { throw bad("a path segment is empty, '..' or has other characters") }
        if let quantization {
            guard path.isEmpty else { throw bad("a file and a quantization cannot both be named") }
            guard quantization.count <= 32, isName(quantization) else { throw bad("the quantization is not a name") }
        }
        self.repository = segments[0] + "/" + segments[1]
        self.file = path.isEmpty ? nil : path.joined(separator: "/")
        self.quantization = quantization
        self.revision = revision
    }

    /// The reference written the canonical way.
    public var description: String {
        let head = "hf.co/" + repository + (revision == "main" ? "" : "@" + revision)
        if let file { return head + "/" + file }
        return head + (quantization.map { ":" + $0 } ?? "")
    }
}
