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

/// Scores candidate tools for a request, so a tiny model need not choose on its own.
///
/// The likelihood score asks the model itself how probable each complete tool name is at
/// the point where it would write it (one engine pass per name, sharing the prompt). The
/// lexical score compares the words of the request with each tool's name, description and
/// argument names (BM25 weighting, light stemming). `hybrid` adds the two after turning
/// each into a probability over the candidates.
struct ToolRouter: Sendable {
    let routing: ToolRouting

    /// The chosen tool and every candidate's score.
    func choose(
        among tools: [ToolDefinition],
        request: String,
        likelihoods: [Double]?
    ) -> ToolSelection {
        let names = tools.map(\.name)
        var scores: [Double]
        var method = routing
        switch routing {
        case .model:
            return ToolSelection(tool: names[0], method: .model)
        case .likelihood:
            scores = likelihoods ?? Self.lexicalScores(tools, request: request)
            if likelihoods == nil { method = .lexical }
        case .lexical:
            scores = Self.lexicalScores(tools, request: request)
        case .hybrid:
            let lexical = Self.softmax(Self.lexicalScores(tools, request: request), temperature: 1)
            if let likelihoods {
                let model = Self.softmax(likelihoods, temperature: 1)
                scores = zip(lexical, model).map { $0 + $1 }
            } else {
                scores = lexical
                method = .lexical
            }
        }
        let best = scores.indices.max { scores[$0] < scores[$1] } ?? 0
        return ToolSelection(
            tool: names[best],
            method: method,
            scores: Dictionary(uniqueKeysWithValues: zip(names, scores))
        )
    }

    static func softmax(_ values: [Double], temperature: Double) -> [Double] {
        guard let peak = values.max() else { return [] }
        let exps = values.map { exp(($0 - peak) / temperature) }
        let total = exps.reduce(0, +)
        return exps.map { $0 / total }
    }

    /// BM25 of the request's words against each tool's document.
    static func lexicalScores(_ tools: [ToolDefinition], request: String) -> [Double] {
        let documents = tools.map { words(in: document(for: $0)) }
        let query = Set(words(in: request))
        let averageLength = Double(documents.map(\.count).reduce(0, +)) / Double(max(documents.count, 1))
        let k1 = 1.2
        let b = 0.75
        return documents.map { document in
            var score = 0.0
            for term in query {
                let frequency = Double(document.filter { $0 == term }.count)
                guard frequency > 0 else { continue }
                let containing = Double(documents.filter { $0.contains(term) }.count)
                let idf = log(1 + (Double(documents.count) - containing + 0.5) / (containing + 0.5))
                let norm =
                    frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * Double(document.count) / averageLength))
                score += idf * norm
            }
            return score
        }
    }

    /// The text a tool is known by: its name split into words, its description, and its
    /// arguments' names and descriptions.
    private static func document(for tool: ToolDefinition) -> String {
        var parts = [tool.name.replacing("_", with: " ").replacing("-", with: " ")]
        parts.append(tool.description)
        if let properties = tool.parameters.value["properties"]?.objectValue {
            for member in properties {
                parts.append(member.key.replacing("_", with: " "))
                if let description = member.value["description"]?.stringValue { parts.append(description) }
                if let values = member.value["enum"]?.arrayValue { parts += values.compactMap(\.stringValue) }
            }
        }
        return parts.joined(separator: " ")
    }

    private static let stopWords: Set<String> = [
        "a", "an", "the", "to", "of", "in", "on", "for", "and", "or", "is", "are", "be", "me", "my", "i", "you",
        "it", "this", "that", "with", "at", "by", "from", "what", "please", "can", "could", "would", "do", "does",
        "how", "get", "set", "give", "tell", "s", "its", "your", "as", "up",
    ]

    /// Lower-cased words with a light English stemming (plural and verb endings).
    static func words(in text: String) -> [String] {
        text.lowercased()
            .split { !$0.isLetter && !$0.isNumber }
            .map(String.init)
            .filter { !stopWords.contains($0) }
            .map(stem)
    }

    private static func stem(_ word: String) -> String {
        for suffix in ["ing", "ies", "es", "ed", "s"] where word.count > suffix.count + 2 && word.hasSuffix(suffix) {
            return suffix == "ies" ? String(word.dropLast(3)) + "y" : String(word.dropLast(suffix.count))
        }
        return word
    }
}
