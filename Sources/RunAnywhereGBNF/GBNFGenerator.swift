/// Writes texts that a ``GBNFGrammar`` accepts, as a model sampling under that grammar
/// would, but from a seeded random generator instead of weights.
///
/// The walk starts at the root and picks among the alternatives (shorter ones more
/// likely), repetition counts and characters at random, and leans towards the shortest
/// way out the deeper it is and the more of the `budget` it has written; past the budget
/// it only takes shortest ways.
/// Shortest lengths come first, from a fixed point over the rules, and each rule's
/// shortest way only goes through rules that reached their length earlier, so following
/// shortest ways always ends, even in a recursive grammar. Characters come from printable
/// ASCII where the class allows: letters and digits first, then other punctuation, then
/// `"` and `\`, then control characters, and only then beyond ASCII (letters, marks and
/// symbols before controls, private use and unassigned code points).
///
/// The same grammar, budget and generator state give the same text.
package struct GBNFGenerator: Sendable {
    /// A generated text.
    package struct Sample: Sendable, Equatable {
        /// The text.
        package var text: String
        /// Whether the text matches the whole root rule; `false` when the shortest way to
        /// finish was longer than the limit (or took more work than its bound) and the
        /// text stops there.
        package var isComplete: Bool
    }

    /// Past this many nested rules, the walk only takes shortest ways.
    package static let maximumDepth = 32

    private let nodes: [Node]
    /// The node of each rule's body, by rule number.
    private let bodies: [Int]
    private let root: Int
    private let ruleNumbers: [String: Int]
    /// The length of each node's shortest text; `Int.max` when it matches no finite text.
    private let shortest: [Int]
    /// For a choice, the alternative that gives its shortest text and ends soonest.
    private let shortestAlternative: [Int]

    /// Prepares `grammar` from its root rule.
    ///
    /// - Throws: `GBNFError` when the root matches no finite text (every way
    ///   through it recurses forever or meets a character class that matches nothing).
    package init(_ grammar: GBNFGrammar) throws(GBNFError) {
        let builder = Builder(grammar)
        nodes = builder.nodes
        bodies = builder.bodies
        ruleNumbers = builder.ruleNumbers
        root = builder.ruleNumbers[grammar.root] ?? 0
        (shortest, shortestAlternative) = Self.shortestTexts(nodes: nodes, bodies: bodies)
        guard shortest[bodies[root]] != Int.max else {
            throw GBNFError(
                "The rule '\(grammar.root)' matches no finite text: every way through it recurses forever "
                    + "or needs a character that nothing matches"
            )
        }
    }

    /// The length, in Unicode scalars, of the shortest text of the rule `name`; `nil` when
    /// it has none or there is no such rule.
    package func shortestLength(ofRule name: String) -> Int? {
        guard let rule = ruleNumbers[name] else { return nil }
        let length = shortest[bodies[rule]]
        return length == Int.max ? nil : length
    }

    /// A text of the root rule of about `budget` Unicode scalars or fewer (more when the
    /// grammar's shortest text is longer), and never more than `limit`.
    package func generate(budget: Int, limit: Int = 1 << 16, using random: inout some RandomNumberGenerator) -> Sample {
        var output = String.UnicodeScalarView()
        var count = 0
        var stack: [(node: Int, depth: Int)] = [(bodies[root], 0)]
        // Hard bounds on work, whatever the grammar: exploring stops early, and walking at all later.
        let exploreSteps = 64 * max(budget, 16) + 1_024
        let stepLimit = 64 * max(limit, 16) + 100_000
        var steps = 0
        while let (node, depth) = stack.popLast() {
            steps += 1
            guard steps <= stepLimit else { return Sample(text: String(output), isComplete: false) }
            let shortestOnly = count >= budget || depth >= Self.maximumDepth || steps > exploreSteps
            if shortestOnly, shortest[node] == 0 { continue }
            let pressure =
                shortestOnly ? 1 : max(Double(depth) / Double(Self.maximumDepth), Double(count) / Double(budget))
            switch nodes[node] {
            case .text(let scalars):
                guard scalars.count <= limit - count else {
                    output.append(contentsOf: scalars.prefix(limit - count))
                    return Sample(text: String(output), isComplete: false)
                }
                output.append(contentsOf: scalars)
                count += scalars.count
            case .characters(let choice):
                guard count < limit else { return Sample(text: String(output), isComplete: false) }
                output.append(choice.pick(using: &random))
                count += 1
            case .nothing:
                // Never reached: the walk only enters nodes with a finite shortest text.
                return Sample(text: String(output), isComplete: false)
            case .rule(let rule):
                stack.append((bodies[rule], depth + 1))
            case .sequence(let elements):
                for element in elements.reversed() {
                    stack.append((element, depth))
                }
            case .choice(let alternatives):
                var chosen = shortestAlternative[node]
                if Self.unit(&random) >= pressure {
                    let room = budget - count
                    let fitting = alternatives.filter { shortest[$0] <= room }
                    if !fitting.isEmpty { chosen = pick(among: fitting, using: &random) }
                }
                stack.append((chosen, depth))
            case .repetition(let item, let min, let max):
                var times = min
                let itemLength = shortest[item]
                if itemLength != Int.max, Self.unit(&random) >= pressure {
                    var extra = (max ?? min + 8) - min
                    if itemLength > 0 {
                        let room = budget - count - Self.multiply(itemLength, min)
                        extra = Swift.min(extra, Swift.max(0, room / itemLength))
                    }
                    // An optional part comes half the time; longer runs take the lesser of two
                    // draws, so every count occurs but short runs are the rule, as in what models
                    // write (`[ \t]{0,20}` is mostly a few spaces).
                    let draw = Self.index(extra + 1, &random)
                    times += extra <= 1 ? draw : Swift.min(draw, Self.index(extra + 1, &random))
                }
                stack.append(contentsOf: repeatElement((node: item, depth: depth), count: times))
            }
        }
        return Sample(text: String(output), isComplete: true)
    }

    // MARK: Random choices

    /// One of `alternatives`, each half as likely as one a character shorter: escapes and
    /// other long forms stay the exception, as they are in what models write.
    private func pick(among alternatives: [Int], using random: inout some RandomNumberGenerator) -> Int {
        let shortestOfAll = alternatives.map { shortest[$0] }.min() ?? 0
        let weights = alternatives.map { 1 << (16 - min(shortest[$0] - shortestOfAll, 16)) }
        var ticket = Self.index(weights.reduce(0, +), &random)
        for (alternative, weight) in zip(alternatives, weights) {
            if ticket < weight { return alternative }
            ticket -= weight
        }
        return alternatives[alternatives.count - 1]
    }

    /// A number below `count`, from the generator's raw output so every platform agrees.
    private static func index(_ count: Int, _ random: inout some RandomNumberGenerator) -> Int {
        Int(random.next() % UInt64(count))
    }

    /// A number in [0, 1).
    private static func unit(_ random: inout some RandomNumberGenerator) -> Double {
        Double(random.next() >> 11) * 0x1p-53
    }

    // MARK: Shortest texts

    /// Lengths saturate here, far beyond any text the walk writes, so sums cannot overflow.
    private static let lengthCap = 1 << 40

    private static func add(_ a: Int, _ b: Int) -> Int {
        a == Int.max || b == Int.max ? Int.max : min(a + b, lengthCap)
    }

    private static func multiply(_ length: Int, _ times: Int) -> Int {
        if length == 0 || times == 0 { return 0 }
        if length == Int.max { return Int.max }
        let (product, overflow) = length.multipliedReportingOverflow(by: times)
        return overflow ? lengthCap : min(product, lengthCap)
    }

    /// Each node's shortest length and, for choices, the alternative to take for it.
    ///
    /// Rule lengths only decrease, round after round, until nothing changes. Each
    /// decrease is stamped with a counter; a rule's final shortest way then only goes
    /// through rules stamped before it (their lengths were already final when it was
    /// found), so choosing by length, then by the latest stamp on the way, never loops.
    private static func shortestTexts(nodes: [Node], bodies: [Int]) -> (lengths: [Int], alternatives: [Int]) {
        var ruleLength = [Int](repeating: Int.max, count: bodies.count)
        var ruleStamp = [Int](repeating: 0, count: bodies.count)
        var stamp = 0
        var changed = true
        while changed {
            changed = false
            // Helper rules tend to follow the rules using them: going backwards settles them first.
            for rule in bodies.indices.reversed() {
                let length = self.length(of: bodies[rule], nodes: nodes, rules: ruleLength)
                if length < ruleLength[rule] {
                    ruleLength[rule] = length
                    stamp += 1
                    ruleStamp[rule] = stamp
                    changed = true
                }
            }
        }
        // Children come before their parents in `nodes`, so one pass in order does it.
        var lengths = [Int](repeating: Int.max, count: nodes.count)
        var stamps = [Int](repeating: 0, count: nodes.count)
        var alternatives = [Int](repeating: -1, count: nodes.count)
        for (index, node) in nodes.enumerated() {
            switch node {
            case .text(let scalars):
                lengths[index] = min(scalars.count, lengthCap)
            case .nothing:
                break
            case .characters(let choice):
                if !choice.isEmpty { lengths[index] = 1 }
            case .rule(let rule):
                lengths[index] = ruleLength[rule]
                stamps[index] = ruleStamp[rule]
            case .sequence(let elements):
                lengths[index] = elements.reduce(0) { add($0, lengths[$1]) }
                stamps[index] = elements.map { stamps[$0] }.max() ?? 0
            case .choice(let choices):
                let best = choices.min { (lengths[$0], stamps[$0]) < (lengths[$1], stamps[$1]) }!
                lengths[index] = lengths[best]
                stamps[index] = stamps[best]
                alternatives[index] = best
            case .repetition(let item, let min, let max):
                if min > 0, max != 0 {
                    lengths[index] = multiply(lengths[item], min)
                    stamps[index] = stamps[item]
                } else {
                    lengths[index] = 0
                }
            }
        }
        return (lengths, alternatives)
    }

    private static func length(of node: Int, nodes: [Node], rules: [Int]) -> Int {
        switch nodes[node] {
        case .text(let scalars):
            return min(scalars.count, lengthCap)
        case .nothing:
            return Int.max
        case .characters(let choice):
            return choice.isEmpty ? Int.max : 1
        case .rule(let rule):
            return rules[rule]
        case .sequence(let elements):
            return elements.reduce(0) { add($0, length(of: $1, nodes: nodes, rules: rules)) }
        case .choice(let alternatives):
            return alternatives.map { length(of: $0, nodes: nodes, rules: rules) }.min() ?? Int.max
        case .repetition(let item, let min, let max):
            return min == 0 || max == 0 ? 0 : multiply(length(of: item, nodes: nodes, rules: rules), min)
        }
    }
}

// MARK: - Nodes

extension GBNFGenerator {
    /// A grammar expression with rules by number and children by index into `nodes`.
    fileprivate enum Node: Sendable {
        case text([Unicode.Scalar])
        /// A reference to a rule the grammar does not define.
        case nothing
        case characters(CharacterChoice)
        case rule(Int)
        case sequence([Int])
        case choice([Int])
        case repetition(Int, min: Int, max: Int?)
    }

    /// Flattens a grammar's expressions into nodes, children first.
    private struct Builder {
        var nodes: [Node] = []
        var bodies: [Int] = []
        var ruleNumbers: [String: Int] = [:]

        init(_ grammar: GBNFGrammar) {
            for (number, name) in grammar.ruleNames.enumerated() {
                ruleNumbers[name] = number
            }
            for name in grammar.ruleNames {
                bodies.append(add(grammar.rules[name] ?? .sequence([])))
            }
        }

        private mutating func add(_ expression: GBNFExpression) -> Int {
            let node: Node
            switch expression {
            case .literal(let text):
                node = .text(Array(text.unicodeScalars))
            case .characters(let set):
                node = .characters(CharacterChoice(set))
            case .rule(let name):
                // The grammar has checked every reference.
                node = ruleNumbers[name].map(Node.rule) ?? .nothing
            case .sequence(let elements):
                node = .sequence(elements.map { add($0) })
            case .choice(let alternatives):
                node = .choice(alternatives.map { add($0) })
            case .repetition(let item, let min, let max):
                node = .repetition(add(item), min: min, max: max)
            }
            nodes.append(node)
            return nodes.count - 1
        }
    }

    /// The characters of a class, sorted by how gladly the generator writes them.
    fileprivate struct CharacterChoice: Sendable {
        /// Code points past ASCII, as inclusive intervals of valid scalars.
        private struct Interval: Sendable {
            var lower: UInt32
            var upper: UInt32
        }

        /// The class's ASCII characters, best first: letters and digits; other printable
        /// characters but `"` and `\`, which need escaping in most formats; those two;
        /// control characters. Empty tiers are left out.
        private let tiers: [[Unicode.Scalar]]
        private let wide: [Interval]

        var isEmpty: Bool { tiers.isEmpty && wide.isEmpty }

        init(_ set: UnicodeScalarSet) {
            // NUL stays out: llama.cpp reads text as C strings.
            let ascii = (1...0x7F).compactMap { Unicode.Scalar(UInt32($0)) }.filter { set.contains($0.value) }
            let alphanumeric = ascii.filter {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
            }
            let printable = ascii.filter { $0.value >= 0x20 && $0.value < 0x7F && !alphanumeric.contains($0) }
            tiers = [
                alphanumeric,
                printable.filter { $0 != "\"" && $0 != "\\" },
                printable.filter { $0 == "\"" || $0 == "\\" },
                ascii.filter { $0.value < 0x20 || $0.value == 0x7F },
            ].filter { !$0.isEmpty }
            let wide = set.ranges.filter { $0.upperBound >= 0x80 }
                .map { Interval(lower: max($0.lowerBound, 0x80), upper: $0.upperBound) }
            self.wide = Self.splitSurrogates(wide)
        }

        private static func splitSurrogates(_ intervals: [Interval]) -> [Interval] {
            var result: [Interval] = []
            for interval in intervals {
                if interval.lower < 0xD800 {
                    result.append(Interval(lower: interval.lower, upper: min(interval.upper, 0xD7FF)))
                }
                if interval.upper > 0xDFFF {
                    result.append(Interval(lower: max(interval.lower, 0xE000), upper: interval.upper))
                }
            }
            return result
        }

        func pick(using random: inout some RandomNumberGenerator) -> Unicode.Scalar {
            if let best = tiers.first {
                return best[Int(random.next() % UInt64(best.count))]
            }
            // Near an interval's start (the code points a range's author had in mind), a few
            // tries for a letter, digit, mark or symbol, then the first such scalar in order:
            // C1 controls, private use and unassigned code points only when nothing else is left.
            for _ in 0..<8 {
                let interval = wide[Int(random.next() % UInt64(wide.count))]
                let span = UInt64(min(interval.upper - interval.lower, 255)) + 1
                if let scalar = Unicode.Scalar(interval.lower + UInt32(random.next() % span)), Self.isGraphic(scalar) {
                    return scalar
                }
            }
            for interval in wide {
                for value in interval.lower...min(interval.upper, interval.lower + 4_095) {
                    if let scalar = Unicode.Scalar(value), Self.isGraphic(scalar) { return scalar }
                }
            }
            return Unicode.Scalar(wide[0].lower) ?? "?"
        }

        private static func isGraphic(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                false
            default:
                true
            }
        }
    }
}
