/// The rules of a GBNF grammar under construction: unique names, shared bodies, and the
/// checks llama.cpp would otherwise only make (or never make) while sampling.
package struct GBNFRuleSet: Sendable {
    package private(set) var rules: [String: GBNFExpression] = [:]
    private var taken: Set<String> = []
    private var namesByBody: [GBNFExpression: String] = [:]

    /// A set with no rules.
    package init() {}

    /// Keeps `names` for rules defined later under exactly those names.
    package mutating func reserve(_ names: some Sequence<String>) {
        taken.formUnion(names)
    }

    /// Whether the rule `name` has a body.
    package func isDefined(_ name: String) -> Bool { rules[name] != nil }

    /// A fresh rule name made of `base`: letters, digits and `-` only (all llama.cpp reads in
    /// a name), at most 48 characters (the end, which names the innermost part), and a
    /// numeric suffix when the name is taken.
    package mutating func declare(_ base: String) -> String {
        let stem = Self.sanitize(base)
        var name = stem
        var suffix = 2
        while taken.contains(name) {
            name = "\(stem)-\(suffix)"
            suffix += 1
        }
        taken.insert(name)
        return name
    }

    /// Sets the body of a declared or reserved rule.
    package mutating func define(_ name: String, _ body: GBNFExpression) {
        taken.insert(name)
        if let old = rules[name], namesByBody[old] == name { namesByBody[old] = nil }
        rules[name] = body
        if namesByBody[body] == nil { namesByBody[body] = name }
    }

    /// A rule with this body: an existing rule with the same body, or a new one named after
    /// `base`.
    package mutating func add(_ base: String, _ body: GBNFExpression) -> GBNFExpression {
        if case .rule = body { return body }
        if let existing = namesByBody[body] { return .rule(existing) }
        let name = declare(base)
        define(name, body)
        return .rule(name)
    }

    /// The body itself when it is short enough to repeat, otherwise a rule named after `base`.
    package mutating func inlineOrAdd(_ base: String, _ body: GBNFExpression) -> GBNFExpression {
        switch body {
        case .rule, .characters: return body
        case .literal(let text) where text.count <= 40: return body
        default: return add(base, body)
        }
    }

    package static func sanitize(_ base: String) -> String {
        var name = ""
        var lastWasDash = true
        for scalar in base.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                name.unicodeScalars.append(scalar)
                lastWasDash = false
            } else if !lastWasDash {
                name += "-"
                lastWasDash = true
            }
        }
        while name.hasSuffix("-") { name.removeLast() }
        if name.count > 48 {
            name = String(name.suffix(48))
            while name.hasPrefix("-") { name.removeFirst() }
        }
        return name.isEmpty ? "rule" : name
    }

    // MARK: Output

    /// The rules reachable from `root`, root first and the others by name, one per line.
    package func gbnf(root: String) -> String {
        let reachable = reachableRules(from: root)
        var lines = ["\(root) ::= \(rules[root]?.gbnf ?? "\"\"")"]
        for name in reachable.sorted() where name != root {
            if let body = rules[name] { lines.append("\(name) ::= \(body.gbnf)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rules reachable from `root` as ``gbnf(root:)`` writes them, every name prefixed
    /// with `prefix`: grammars compiled apart can then share one text without their names
    /// colliding (the root becomes `prefix + root`).
    package func gbnf(root: String, prefix: String) -> String {
        var renamed = GBNFRuleSet()
        for name in reachableRules(from: root) {
            guard let body = rules[name] else { continue }
            renamed.define(prefix + name, body.renamingRules { prefix + $0 })
        }
        return renamed.gbnf(root: prefix + root)
    }

    package func reachableRules(from root: String) -> Set<String> {
        var seen: Set<String> = [root]
        var pending = [root]
        while let name = pending.popLast() {
            guard let body = rules[name] else { continue }
            for reference in GBNFAnalysis.references(in: body) where seen.insert(reference).inserted {
                pending.append(reference)
            }
        }
        return seen
    }

    // MARK: Checks

    /// Rules among `names` that can never match a finite text: every way through them
    /// leads back to themselves.
    package func unproductiveRules(among names: Set<String>) -> Set<String> {
        GBNFAnalysis.unproductiveRules(rules, among: names)
    }

    /// A rule among `names` that can reach itself without matching any text first, or that
    /// repeats, more than once, something that can be empty (llama.cpp turns `x*` into
    /// `r ::= x r |`, left-recursive then); `nil` when there is none.
    package func leftRecursiveRule(among names: Set<String>) -> String? {
        GBNFAnalysis.leftRecursiveRule(rules, order: names.sorted(), strictRepetitions: true)
    }
}
