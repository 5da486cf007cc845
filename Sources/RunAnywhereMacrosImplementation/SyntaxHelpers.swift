import SwiftSyntax

extension TypeSyntax {
    /// `T` when this is `T?`, `T!` or `Optional<T>`.
    var optionalWrapped: TypeSyntax? {
        if let optional = self.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let unwrapped = self.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType }
        return genericArgument(of: "Optional")
    }

    /// `T` when this is `[T]` or `Array<T>`.
    var arrayElement: TypeSyntax? {
        if let array = self.as(ArrayTypeSyntax.self) { return array.element }
        return genericArgument(of: "Array")
    }

    /// `[K: V]` or `Dictionary<K, V>`, which `Generable` leaves out: a schema needs fixed keys.
    var isDictionary: Bool {
        self.is(DictionaryTypeSyntax.self) || simpleName == "Dictionary"
    }

    /// The last name of a plain or qualified type (`Int` for both `Int` and `Swift.Int`).
    var simpleName: String? {
        if let identifier = self.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = self.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }

    /// Tuples, functions and existentials: shapes that cannot conform to a protocol of ours.
    var cannotBeGenerable: Bool {
        let shape = self.as(AttributedTypeSyntax.self)?.baseType ?? self
        return shape.is(TupleTypeSyntax.self) || shape.is(FunctionTypeSyntax.self)
            || shape.is(SomeOrAnyTypeSyntax.self) || shape.is(CompositionTypeSyntax.self)
    }

    /// Whether the type names `typeName` or `Self` anywhere, which a derived schema would
    /// recurse on forever (`Item.Kind` only names a member of `Item`, so it does not count).
    func mentions(_ typeName: String) -> Bool {
        tokens(viewMode: .sourceAccurate).contains { token in
            guard token.text == typeName || token.tokenKind == .keyword(.Self) else { return false }
            guard let identifier = token.parent?.as(IdentifierTypeSyntax.self) else { return false }
            let member = identifier.parent?.as(MemberTypeSyntax.self)
            return member?.baseType.id != identifier.id
        }
    }

    /// The single generic argument of `Name<T>` (or `Swift.Name<T>`).
    private func genericArgument(of name: String) -> TypeSyntax? {
        let clause: GenericArgumentClauseSyntax?
        if let identifier = self.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            clause = identifier.genericArgumentClause
        } else if let member = self.as(MemberTypeSyntax.self), member.name.text == name,
            member.baseType.simpleName == "Swift"
        {
            clause = member.genericArgumentClause
        } else {
            return nil
        }
        guard let arguments = clause?.arguments, arguments.count == 1 else { return nil }
        return arguments.first?.argument.as(TypeSyntax.self)
    }
}

extension TokenSyntax {
    /// The identifier as a name, without the backticks that let it be a keyword.
    var unescapedText: String {
        text.count > 2 && text.hasPrefix("`") && text.hasSuffix("`") ? String(text.dropFirst().dropLast()) : text
    }
}

extension DeclModifierListSyntax {
    /// Whether a modifier of this kind is present.
    func contains(_ keyword: Keyword) -> Bool {
        contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// The modifier members added in an extension need so the conformance is visible
    /// wherever the type is: `public ` for public and open types, `package ` for package ones.
    var accessPrefix: String {
        if contains(.public) || contains(.open) { return "public " }
        if contains(.package) { return "package " }
        return ""
    }
}

extension AttributeSyntax {
    /// Whether this is `@name` or `@Module.name`.
    func isNamed(_ name: String) -> Bool {
        attributeName.simpleName == name
    }

    /// The argument with this label, unless it is absent or a `nil` literal.
    func argument(_ label: String) -> ExprSyntax? {
        guard case .argumentList(let arguments) = self.arguments else { return nil }
        let expression = arguments.first { $0.label?.text == label }?.expression
        return expression?.is(NilLiteralExprSyntax.self) == true ? nil : expression
    }
}

extension String {
    /// The text as a Swift string literal; only used for identifiers, which need no escaping.
    var quoted: String { "\"\(self)\"" }
}
