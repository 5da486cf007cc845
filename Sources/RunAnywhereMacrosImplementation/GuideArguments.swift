import SwiftSyntax
import SwiftSyntaxBuilder

/// What one `@Guide` attribute asks for, read from its syntax.
///
/// The attribute's arguments were already type-checked against the `Guide` overloads, so
/// only their shape matters here; expressions are passed through as written.
struct GuideArguments {
    /// The bounds of `a...b`, `a...` or `...b`; for any other range expression, its
    /// `lowerBound` and `upperBound`.
    struct Bounds {
        var lower: ExprSyntax?
        var upper: ExprSyntax?
    }

    enum Constraint {
        case range(Bounds)
        case pattern(ExprSyntax)
        case count(Bounds)
        case anyOf(ExprSyntax)
    }

    let attribute: AttributeSyntax
    let description: ExprSyntax?
    let constraint: Constraint?

    init(_ attribute: AttributeSyntax) {
        self.attribute = attribute
        description = attribute.argument("description")
        if let range = attribute.argument("range") {
            constraint = .range(Self.bounds(of: range) ?? Self.closedRangeBounds(of: range))
        } else if let pattern = attribute.argument("pattern") {
            constraint = .pattern(pattern)
        } else if let count = attribute.argument("count") {
            // Not written as a range, so it is the `count: Int` overload: an exact count.
            constraint = .count(Self.bounds(of: count) ?? Bounds(lower: count, upper: count))
        } else if let choices = attribute.argument("anyOf") {
            constraint = .anyOf(choices)
        } else {
            constraint = nil
        }
    }

    /// The `@Guide` attributes of a declaration, in source order.
    static func all(in attributes: AttributeListSyntax) -> [GuideArguments] {
        attributes.compactMap { element in
            guard case .attribute(let attribute) = element, attribute.isNamed("Guide") else { return nil }
            return GuideArguments(attribute)
        }
    }

    /// Splits a range written with `...`; nil for any other expression.
    private static func bounds(of expression: ExprSyntax) -> Bounds? {
        if let postfix = expression.as(PostfixOperatorExprSyntax.self), postfix.operator.text == "..." {
            return Bounds(lower: postfix.expression, upper: nil)
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "..." {
            return Bounds(lower: nil, upper: prefix.expression)
        }
        if let infix = expression.as(InfixOperatorExprSyntax.self),
            infix.operator.as(BinaryOperatorExprSyntax.self)?.operator.text == "..."
        {
            return Bounds(lower: infix.leftOperand, upper: infix.rightOperand)
        }
        // Unfolded, `a + 1...b` is one sequence; `...` binds looser than arithmetic, so the
        // operands are whatever stands on either side of it.
        guard let sequence = expression.as(SequenceExprSyntax.self) else { return nil }
        let elements = Array(sequence.elements)
        let isRangeOperator = { (element: ExprSyntax) in
            element.as(BinaryOperatorExprSyntax.self)?.operator.text == "..."
        }
        guard let index = elements.firstIndex(where: isRangeOperator), index > 0, index < elements.count - 1 else {
            return nil
        }
        return Bounds(lower: joined(elements[..<index]), upper: joined(elements[(index + 1)...]))
    }

    private static func closedRangeBounds(of expression: ExprSyntax) -> Bounds {
        // `.lowerBound` can follow a name, a member or a call as it is; anything else, such
        // as `flag ? a : b`, needs parentheses first.
        let isPostfix =
            expression.is(DeclReferenceExprSyntax.self) || expression.is(MemberAccessExprSyntax.self)
            || expression.is(FunctionCallExprSyntax.self)
        let range: ExprSyntax = isPostfix ? expression.trimmed : "(\(expression.trimmed))"
        return Bounds(lower: "\(range).lowerBound", upper: "\(range).upperBound")
    }

    private static func joined(_ elements: ArraySlice<ExprSyntax>) -> ExprSyntax {
        if elements.count == 1, let only = elements.first { return only.trimmed }
        return ExprSyntax(SequenceExprSyntax(elements: ExprListSyntax(elements.map(\.trimmed))))
    }
}

extension ExprSyntax {
    /// A literal with a fractional part, such as `0.5` or `-1.0`.
    var isFractionalLiteral: Bool {
        if self.is(FloatLiteralExprSyntax.self) { return true }
        guard let prefix = self.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" else { return false }
        return prefix.expression.is(FloatLiteralExprSyntax.self)
    }
}
