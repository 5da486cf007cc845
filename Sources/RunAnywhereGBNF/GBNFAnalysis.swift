/// What can be known of a grammar's rules before sampling: which can match the empty text,
/// which can finish at all, which can start with which, and where llama.cpp would meet left
/// recursion. The schema compiler checks what it builds with it, and ``GBNFGrammar`` checks
/// what it parses.
package enum GBNFAnalysis {
    /// Whether `expression` can match the empty text, given whether each rule it refers to
    /// can. `x{0}` can, as can anything repeated at least zero times.
    package static func isNullable(_ expression: GBNFExpression, rule isNullableRule: (String) -> Bool) -> Bool {
        switch expression {
        case .literal(let text): text.isEmpty
        case .characters: false
        case .rule(let name): isNullableRule(name)
        case .sequence(let elements): elements.allSatisfy { isNullable($0, rule: isNullableRule) }
        case .choice(let alternatives): alternatives.contains { isNullable($0, rule: isNullableRule) }
        case .repetition(let item, let min, let max): min == 0 || max == 0 || isNullable(item, rule: isNullableRule)
        }
    }

    /// The rules among `names` that can match the empty text: a least fixed point, as a rule
    /// may be empty only by way of others.
    package static func nullableRules(
        _ rules: [String: GBNFExpression],
        among names: some Collection<String>
    ) -> Set<String> {
        var nullable: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for name in names where !nullable.contains(name) {
                if let body = rules[name], isNullable(body, rule: nullable.contains) {
                    nullable.insert(name)
                    changed = true
                }
            }
        }
        return nullable
    }

    /// The rules among `names` that can never match a finite text: every way through them
    /// leads back to themselves, or meets a class that matches nothing.
    package static func unproductiveRules(_ rules: [String: GBNFExpression], among names: Set<String>) -> Set<String> {
        var productive: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for name in names where !productive.contains(name) {
                if let body = rules[name], isProductive(body, productive) {
                    productive.insert(name)
                    changed = true
                }
            }
        }
        return names.subtracting(productive)
    }

    private static func isProductive(_ expression: GBNFExpression, _ productive: Set<String>) -> Bool {
        switch expression {
        case .literal: true
        case .characters(let set): !set.isEmpty
        case .rule(let name): productive.contains(name)
        case .sequence(let elements): elements.allSatisfy { isProductive($0, productive) }
        case .choice(let alternatives): alternatives.contains { isProductive($0, productive) }
        case .repetition(let item, let min, let max): min == 0 || max == 0 || isProductive(item, productive)
        }
    }

    /// Every rule `expression` refers to, in order, with repeats.
    package static func references(in expression: GBNFExpression) -> [String] {
        switch expression {
        case .literal, .characters: []
        case .rule(let name): [name]
        case .sequence(let elements), .choice(let elements): elements.flatMap { references(in: $0) }
        case .repetition(let item, _, _): references(in: item)
        }
    }

    /// The rules `expression` can start with: those reached before it must match a character.
    package static func leadingRules(_ expression: GBNFExpression, nullable: Set<String>) -> [String] {
        switch expression {
        case .literal, .characters:
            return []
        case .rule(let name):
            return [name]
        case .sequence(let elements):
            var result: [String] = []
            for element in elements {
                result += leadingRules(element, nullable: nullable)
                if !isNullable(element, rule: nullable.contains) { break }
            }
            return result
        case .choice(let alternatives):
            return alternatives.flatMap { leadingRules($0, nullable: nullable) }
        case .repetition(let item, _, let max):
            return max == 0 ? [] : leadingRules(item, nullable: nullable)
        }
    }

    /// The first rule of `order` that can reach itself without matching a character, which
    /// llama.cpp refuses (its sampler would expand it without end); `nil` when there is none.
    ///
    /// - Parameter strictRepetitions: Also count a rule that repeats, more than once, something
    ///   that can be empty: llama.cpp writes `x*` as `r ::= x r |`, left-recursive when `x` can
    ///   be empty. A compiler that builds grammars wants this; a parser that follows llama.cpp
    ///   checks llama.cpp's narrower syntactic rule itself.
    package static func leftRecursiveRule(
        _ rules: [String: GBNFExpression],
        order: [String],
        strictRepetitions: Bool
    ) -> String? {
        let nullable = nullableRules(rules, among: order)
        var edges: [String: [String]] = [:]
        for name in order {
            guard let body = rules[name] else { continue }
            if strictRepetitions, repeatsNullable(body, nullable) { return name }
            edges[name] = leadingRules(body, nullable: nullable)
        }
        // Iterative depth-first search: a long chain of rules must not exhaust the stack.
        var state: [String: Bool] = [:]  // false: on the current path; true: done
        for start in order where state[start] == nil {
            var path: [(name: String, next: Int)] = [(start, 0)]
            state[start] = false
            while let top = path.last {
                let targets = edges[top.name] ?? []
                guard top.next < targets.count else {
                    state[top.name] = true
                    path.removeLast()
                    continue
                }
                path[path.count - 1].next += 1
                let target = targets[top.next]
                switch state[target] {
                case false?:
                    let cycle = path.drop(while: { $0.name != target }).map(\.name)
                    return order.first { cycle.contains($0) } ?? target
                case true?:
                    continue
                case nil:
                    guard edges[target] != nil else { continue }
                    state[target] = false
                    path.append((target, 0))
                }
            }
        }
        return nil
    }

    private static func repeatsNullable(_ expression: GBNFExpression, _ nullable: Set<String>) -> Bool {
        switch expression {
        case .literal, .characters, .rule:
            return false
        case .sequence(let elements), .choice(let elements):
            return elements.contains { repeatsNullable($0, nullable) }
        case .repetition(let item, _, let max):
            if max != 1, isNullable(item, rule: nullable.contains) { return true }
            return repeatsNullable(item, nullable)
        }
    }
}
