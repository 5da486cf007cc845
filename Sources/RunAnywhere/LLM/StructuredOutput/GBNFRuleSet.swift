/// The rules of a GBNF grammar under construction: unique names, shared bodies, and the
/// checks llama.cpp would otherwise only make (or never make) while sampling.
struct GBNFRuleSet: Sendable {
    private(set) var rules: [String: GBNFExpression] = [:]
    private var taken: Set<String> = []
    private var namesByBody: [GBNFExpression: String] = [:]

    /// Keeps `names` for rules defined later under exactly those names.
    mutating func reserve(_ names: some Sequence<String>) {
        taken.formUnion(names)
    }

    func isDefined(_ name: String) -> Bool { rules[name] != nil }

    /// A fresh rule name made of `base`: letters, digits and `-` only (all llama.cpp reads in
    /// a name), at most 48 characters (the end, which names the innermost part), and a
    /// numeric suffix when the name is taken.
    mutating func declare(_ base: String) -> String {
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
    mutating func define(_ name: String, _ body: GBNFExpression) {
        taken.insert(name)
        if let old = rules[name], namesByBody[old] == name { namesByBody[old] = nil }
        rules[name] = body
        if namesByBody[body] == nil { namesByBody[body] = name }
    }

    /// A rule with this body: an existing rule with the same body, or a new one named after
    /// `base`.
    mutating func add(_ base: String, _ body: GBNFExpression) -> GBNFExpression {
        if case .rule = body { return body }
        if let existing = namesByBody[body] { return .rule(existing) }
        let name = declare(base)
        define(name, body)
        return .rule(name)
    }

    /// The body itself when it is short enough to repeat, otherwise a rule named after `base`.
    mutating func inlineOrAdd(_ base: String, _ body: GBNFExpression) -> GBNFExpression {
        switch body {
        case .rule, .characters: return body
        case .literal(let text) where text.count <= 40: return body
        default: return add(base, body)
        }
    }

    static func sanitize(_ base: String) -> String {
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
    func gbnf(root: String) -> String {
        let reachable = reachableRules(from: root)
        var lines = ["\(root) ::= \(rules[root]?.gbnf ?? "\"\"")"]
        for name in reachable.sorted() where name != root {
            if let body = rules[name] { lines.append("\(name) ::= \(body.gbnf)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func reachableRules(from root: String) -> Set<String> {
        var seen: Set<String> = [root]
        var pending = [root]
        while let name = pending.popLast() {
            guard let body = rules[name] else { continue }
            for reference in Self.references(in: body) where seen.insert(reference).inserted {
                pending.append(reference)
            }
        }
        return seen
    }

    private static func references(in expression: GBNFExpression) -> [String] {
        switch expression {
        case .literal, .characters: return []
        case .rule(let name): return [name]
        case .sequence(let elements), .choice(let elements): return elements.flatMap { references(in: $0) }
        case .repetition(let item, _, _): return references(in: item)
        }
    }

    // MARK: Checks

    /// Rules among `names` that can never match a finite text: every way through them
    /// leads back to themselves.
    func unproductiveRules(among names: Set<String>) -> Set<String> {
        var productive: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for name in names where !productive.contains(name) {
                if let body = rules[name], Self.isProductive(body, productive) {
                    productive.insert(name)
                    changed = true
                }
            }
        }
        return names.subtracting(productive)
    }

    private static func isProductive(_ expression: GBNFExpression, _ productive: Set<String>) -> Bool {
        switch expression {
        case .literal, .characters: return true
        case .rule(let name): return productive.contains(name)
        case .sequence(let elements): return elements.allSatisfy { isProductive($0, productive) }
        case .choice(let alternatives): return alternatives.contains { isProductive($0, productive) }
        case .repetition(let item, let min, _): return min == 0 || isProductive(item, productive)
        }
    }

    /// A rule among `names` that can reach itself without matching any text first, which
    /// llama.cpp refuses as left recursion; `nil` when there is none.
    func leftRecursiveRule(among names: Set<String>) -> String? {
        var nullable: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for name in names where !nullable.contains(name) {
                if let body = rules[name], Self.isNullable(body, nullable) {
                    nullable.insert(name)
                    changed = true
                }
            }
        }
        var edges: [String: [String]] = [:]
        for name in names.sorted() {
            guard let body = rules[name] else { continue }
            // llama.cpp turns `x*` into `r ::= x r |`, left-recursive when `x` can be empty.
            if Self.repeatsNullable(body, nullable) { return name }
            edges[name] = Self.leadingRules(body, nullable)
        }
        // Depth-first search for a cycle, iterative so a long chain cannot exhaust the stack.
        var state: [String: Int] = [:]  // 1: on the current path, 2: done
        for start in names.sorted() where state[start] == nil {
            var stack: [(String, Int)] = [(start, 0)]
            state[start] = 1
            while let (name, index) = stack.last {
                let next = edges[name] ?? []
                if index < next.count {
                    stack[stack.count - 1].1 += 1
                    let target = next[index]
                    if state[target] == 1 { return target }
                    if state[target] == nil, rules[target] != nil {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    state[name] = 2
                    stack.removeLast()
                }
            }
        }
        return nil
    }

    static func isNullable(_ expression: GBNFExpression, _ nullable: Set<String>) -> Bool {
        switch expression {
        case .literal(let text): return text.isEmpty
        case .characters: return false
        case .rule(let name): return nullable.contains(name)
        case .sequence(let elements): return elements.allSatisfy { isNullable($0, nullable) }
        case .choice(let alternatives): return alternatives.contains { isNullable($0, nullable) }
        case .repetition(let item, let min, _): return min == 0 || isNullable(item, nullable)
        }
    }

    private static func repeatsNullable(_ expression: GBNFExpression, _ nullable: Set<String>) -> Bool {
        switch expression {
        case .literal, .characters, .rule: return false
        case .sequence(let elements), .choice(let elements): return elements.contains { repeatsNullable($0, nullable) }
        case .repetition(let item, _, let max):
            if max != 1, isNullable(item, nullable) { return true }
            return repeatsNullable(item, nullable)
        }
    }

    /// The rules that can come first in `expression`.
    private static func leadingRules(_ expression: GBNFExpression, _ nullable: Set<String>) -> [String] {
        switch expression {
        case .literal, .characters: return []
        case .rule(let name): return [name]
        case .sequence(let elements):
            var result: [String] = []
            for element in elements {
                result += leadingRules(element, nullable)
                if !isNullable(element, nullable) { break }
            }
            return result
        case .choice(let alternatives): return alternatives.flatMap { leadingRules($0, nullable) }
        case .repetition(let item, _, _): return leadingRules(item, nullable)
        }
    }
}
