/// Whether a grammar matches a whole text, by backtracking through its rules.
///
/// For checking short texts in tests: the time can grow exponentially with the text on
/// ambiguous grammars, and a left-recursive rule would recurse without end (check with
/// ``GBNFAnalysis/leftRecursiveRule(_:order:strictRepetitions:)`` first).
package struct GBNFMatcher: Sendable {
    private let rules: [String: GBNFExpression]

    /// A matcher over these rules.
    package init(rules: [String: GBNFExpression]) {
        self.rules = rules
    }

    /// A matcher over a parsed grammar's rules.
    package init(_ grammar: GBNFGrammar) {
        self.init(rules: grammar.rules)
    }

    /// Whether the rule `root` matches all of `text`.
    package func accepts(_ text: String, root: String = "root") -> Bool {
        let scalars = Array(text.unicodeScalars)
        return match(.rule(root), scalars, 0) { $0 == scalars.count }
    }

    private func match(
        _ expression: GBNFExpression,
        _ scalars: [Unicode.Scalar],
        _ index: Int,
        _ next: (Int) -> Bool
    ) -> Bool {
        switch expression {
        case .literal(let text):
            var end = index
            for scalar in text.unicodeScalars {
                guard end < scalars.count, scalars[end] == scalar else { return false }
                end += 1
            }
            return next(end)
        case .characters(let set):
            guard index < scalars.count, set.contains(scalars[index].value) else { return false }
            return next(index + 1)
        case .rule(let name):
            guard let body = rules[name] else { return false }
            return match(body, scalars, index, next)
        case .sequence(let elements):
            return matchSequence(elements[...], scalars, index, next)
        case .choice(let alternatives):
            return alternatives.contains { match($0, scalars, index, next) }
        case .repetition(let item, let min, let max):
            return matchRepetition(item, min: min, max: max, count: 0, scalars, index, next)
        }
    }

    private func matchSequence(
        _ elements: ArraySlice<GBNFExpression>,
        _ scalars: [Unicode.Scalar],
        _ index: Int,
        _ next: (Int) -> Bool
    ) -> Bool {
        guard let first = elements.first else { return next(index) }
        return match(first, scalars, index) { matchSequence(elements.dropFirst(), scalars, $0, next) }
    }

    private func matchRepetition(
        _ item: GBNFExpression,
        min: Int,
        max: Int?,
        count: Int,
        _ scalars: [Unicode.Scalar],
        _ index: Int,
        _ next: (Int) -> Bool
    ) -> Bool {
        if count >= min, next(index) { return true }
        if let max, count >= max { return false }
        // A copy that matches nothing cannot bring the end closer: past `min`, it is skipped.
        return match(item, scalars, index) { end in
            (end > index || count < min)
                && matchRepetition(item, min: min, max: max, count: count + 1, scalars, end, next)
        }
    }
}
