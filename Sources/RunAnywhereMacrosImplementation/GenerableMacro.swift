import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Generable`: an extension that adds `Generable` and derives `generationSchema` from the
/// declaration, the way synthesized `Codable` derives its JSON.
public struct GenerableMacro: ExtensionMacro {
    /// Builds the extension, or reports every misuse in the declaration at once.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let description = node.argument("description")
        var diagnostics = DiagnosticList()
        let members: [String]
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            members = structMembers(structDecl, description: description, diagnostics: &diagnostics)
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            members = enumMembers(enumDecl, description: description, diagnostics: &diagnostics)
        } else {
            let (keyword, kind) = introducer(of: declaration)
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: keyword ?? Syntax(node), message: GenerableDiagnostic.unsupportedDeclaration(kind))
            ])
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics: diagnostics.all) }

        // The protocols are empty when the type already states the conformance itself.
        let conformances = protocols.map(\.trimmedDescription).joined(separator: ", ")
        let header = "extension \(type.trimmedDescription)" + (conformances.isEmpty ? "" : ": \(conformances)")
        let body = members.joined(separator: "\n\n")
        let extensionDecl: DeclSyntax = "\(raw: header) {\n\(raw: body)\n}"
        return [extensionDecl.cast(ExtensionDeclSyntax.self)]
    }

    private static func introducer(of declaration: some DeclGroupSyntax) -> (Syntax?, String) {
        if let decl = declaration.as(ClassDeclSyntax.self) { return (Syntax(decl.classKeyword), "a class") }
        if let decl = declaration.as(ActorDeclSyntax.self) { return (Syntax(decl.actorKeyword), "an actor") }
        if let decl = declaration.as(ProtocolDeclSyntax.self) { return (Syntax(decl.protocolKeyword), "a protocol") }
        if let decl = declaration.as(ExtensionDeclSyntax.self) {
            return (Syntax(decl.extensionKeyword), "an extension")
        }
        return (nil, "this declaration")
    }

    // MARK: Structs

    /// A stored property as synthesized `Codable` sees it.
    private struct StoredProperty {
        let name: String
        /// The JSON key, as the source of a string literal.
        let key: String
        let type: TypeSyntax
        let guide: GuideArguments?
    }

    private static func structMembers(
        _ decl: StructDeclSyntax,
        description: ExprSyntax?,
        diagnostics: inout DiagnosticList
    ) -> [String] {
        let properties = storedProperties(of: decl, diagnostics: &diagnostics)
        var entries: [String] = []
        var required: [String] = []
        for property in properties {
            guard let schema = schema(of: property, in: decl.name.text, diagnostics: &diagnostics) else { continue }
            entries.append("(name: \(property.key), schema: \(schema)),")
            if property.type.optionalWrapped == nil { required.append(property.key) }
        }
        let list =
            entries.isEmpty
            ? "[]"
            : "[\n" + entries.map { "                \($0)" }.joined(separator: "\n") + "\n            ]"
        var arguments = [
            "orderedProperties: \(list)",
            "required: [\(required.joined(separator: ", "))]",
            "additionalProperties: false",
        ]
        if let description { arguments.append("description: \(description.trimmedDescription)") }
        return [
            """
                \(decl.modifiers.accessPrefix)static var generationSchema: JSONSchema {
                    .object(
                        \(arguments.joined(separator: ",\n            "))
                    )
                }
            """
        ]
    }

    /// The properties synthesized `Codable` encodes, in declaration order, keyed as it keys them.
    private static func storedProperties(
        of decl: StructDeclSyntax,
        diagnostics: inout DiagnosticList
    ) -> [StoredProperty] {
        let keys = codingKeys(in: decl.memberBlock.members)
        var properties: [StoredProperty] = []
        for member in decl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(.static), !variable.modifiers.contains(.class),
                !variable.modifiers.contains(.lazy)
            else { continue }
            let guides = GuideArguments.all(in: variable.attributes)
            for extra in guides.dropFirst() {
                diagnostics.add(extra.attribute, .duplicateGuide)
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                guard !binding.isComputed, !(isLet && binding.initializer != nil) else { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    diagnostics.add(binding.pattern, .destructuringPattern)
                    continue
                }
                let name = pattern.identifier.unescapedText
                // In `var a, b: Int`, `a` takes the type of `b`.
                let sharedType =
                    binding.initializer == nil
                    ? bindings[(index + 1)...].lazy.compactMap(\.typeAnnotation).first?.type : nil
                guard let type = binding.typeAnnotation?.type ?? sharedType else {
                    diagnostics.add(pattern, .missingType(name))
                    continue
                }
                // A property that CodingKeys leaves out is not encoded at all.
                let key = keys == nil ? name.quoted : keys?[name]
                guard let key else { continue }
                properties.append(StoredProperty(name: name, key: key, type: type, guide: guides.first))
            }
        }
        return properties
    }

    /// The keys of a nested `CodingKeys` enum by case name, as string literal source;
    /// nil when the struct leaves its keys to `Codable`.
    private static func codingKeys(in members: MemberBlockItemListSyntax) -> [String: String]? {
        let enums = members.lazy.compactMap { $0.decl.as(EnumDeclSyntax.self) }
        guard let codingKeys = enums.first(where: { $0.name.text == "CodingKeys" }) else { return nil }
        let hasStringKeys = codingKeys.inheritanceClause?.inheritedTypes.first?.type.simpleName == "String"
        var keys: [String: String] = [:]
        for element in caseElements(of: codingKeys) {
            let name = element.name.unescapedText
            let literal = hasStringKeys ? element.rawValue?.value.as(StringLiteralExprSyntax.self) : nil
            keys[name] = literal?.trimmedDescription ?? name.quoted
        }
        return keys
    }

    /// The schema of one property as source: `<Type>.generationSchema`, or a builder call
    /// when `@Guide` narrows it.
    private static func schema(
        of property: StoredProperty,
        in typeName: String,
        diagnostics: inout DiagnosticList
    ) -> String? {
        // Optional properties are simply left out of `required`, as Codable leaves out nil.
        let base = (property.type.optionalWrapped ?? property.type).trimmed
        guard !base.cannotBeGenerable else {
            diagnostics.add(property.type, .unsupportedType(property.name, base.trimmedDescription))
            return nil
        }
        guard !base.isDictionary else {
            diagnostics.add(property.type, .dictionaryProperty(property.name))
            return nil
        }
        guard !base.mentions(typeName) else {
            diagnostics.add(property.type, .recursiveProperty(property.name, typeName))
            return nil
        }
        let description = property.guide?.description
        guard let guide = property.guide, let constraint = guide.constraint else {
            let schema = "\(base.trimmedDescription).generationSchema"
            return description.map { "\(schema).described(\($0.trimmedDescription))" } ?? schema
        }
        func mismatch(_ label: String, _ expected: String) {
            diagnostics.add(guide.attribute, .guideTypeMismatch(label, expected, base.trimmedDescription))
        }
        switch constraint {
        case .range(let bounds):
            switch base.simpleName {
            case "Int":
                if bounds.lower?.isFractionalLiteral == true || bounds.upper?.isFractionalLiteral == true {
                    diagnostics.add(guide.attribute, .fractionalIntegerBound)
                    return nil
                }
                return call(
                    "integer",
                    [("minimum", bounds.lower), ("maximum", bounds.upper), ("description", description)]
                )
            case "Double", "Float":
                return call(
                    "number",
                    [("minimum", bounds.lower), ("maximum", bounds.upper), ("description", description)]
                )
            default:
                mismatch("range", "Int, Double or Float")
                return nil
            }
        case .pattern(let pattern):
            guard base.simpleName == "String" else {
                mismatch("pattern", "String")
                return nil
            }
            return call("string", [("pattern", pattern), ("description", description)])
        case .count(let bounds):
            guard let element = base.arrayElement else {
                mismatch("count", "array")
                return nil
            }
            let items: ExprSyntax = "\(element.trimmed).generationSchema"
            return call(
                "array",
                [("of", items), ("minItems", bounds.lower), ("maxItems", bounds.upper), ("description", description)]
            )
        case .anyOf(let choices):
            guard base.simpleName == "String" else {
                mismatch("anyOf", "String")
                return nil
            }
            return call("enumeration", [("", choices), ("description", description)])
        }
    }

    /// `.name(label: value, ...)` with the absent arguments left out, so the builder's defaults apply.
    private static func call(_ name: String, _ arguments: [(label: String, value: ExprSyntax?)]) -> String {
        let present = arguments.compactMap { argument in
            argument.value.map { argument.label.isEmpty ? $0.trimmedDescription : "\(argument.label): \($0.trimmed)" }
        }
        return ".\(name)(\(present.joined(separator: ", ")))"
    }

    // MARK: Enums

    private static func enumMembers(
        _ decl: EnumDeclSyntax,
        description: ExprSyntax?,
        diagnostics: inout DiagnosticList
    ) -> [String] {
        let rawType = decl.inheritanceClause?.inheritedTypes.first?.type.simpleName
        let hasStringRawValues = rawType == "String"
        if let rawType, nonStringRawTypes.contains(rawType), let type = decl.inheritanceClause?.inheritedTypes.first {
            diagnostics.add(type, .nonStringRawValue(rawType))
            return []
        }
        var cases: [(name: String, value: String)] = []
        for element in caseElements(of: decl) {
            if element.parameterClause != nil {
                diagnostics.add(element, .caseWithPayload(element.name.unescapedText))
                continue
            }
            let literal = hasStringRawValues ? element.rawValue?.value.as(StringLiteralExprSyntax.self) : nil
            cases.append((element.name.text, literal?.trimmedDescription ?? element.name.unescapedText.quoted))
        }
        if cases.isEmpty, diagnostics.isEmpty {
            diagnostics.add(decl.name, .noCases)
        }
        guard !cases.isEmpty else { return [] }
        let access = decl.modifiers.accessPrefix
        let values = cases.map(\.value).joined(separator: ", ")
        var members = [
            """
                \(access)static var generationSchema: JSONSchema {
                    \(call("enumeration", [("", "[\(raw: values)]"), ("description", description)]))
                }
            """
        ]
        // Without raw values, synthesized Codable writes `{"name": {}}`; the schema promises
        // the bare name, so encode and decode it that way unless the enum does so itself.
        guard !hasStringRawValues else { return members }
        let typeName = decl.name.text
        if !decl.declaresInitFromDecoder {
            let branches = cases.map { "        case \($0.value):\n            self = .\($0.name)" }
            members.append(
                """
                    \(access)init(from decoder: any Swift.Decoder) throws {
                        let name = try decoder.singleValueContainer().decode(Swift.String.self)
                        switch name {
                \(branches.joined(separator: "\n"))
                        default:
                            throw Swift.DecodingError.dataCorrupted(
                                Swift.DecodingError.Context(
                                    codingPath: decoder.codingPath,
                                    debugDescription: "'\\(name)' is not a case of \(typeName)"
                                )
                            )
                        }
                    }
                """
            )
        }
        if !decl.declaresEncodeToEncoder {
            let branches = cases.map { "        case .\($0.name):\n            try container.encode(\($0.value))" }
            members.append(
                """
                    \(access)func encode(to encoder: any Swift.Encoder) throws {
                        var container = encoder.singleValueContainer()
                        switch self {
                \(branches.joined(separator: "\n"))
                        }
                    }
                """
            )
        }
        return members
    }

    /// Raw types whose values Codable writes as something other than a JSON string.
    private static let nonStringRawTypes: Set<String> = [
        "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Float16", "Character",
    ]

    private static func caseElements(of decl: EnumDeclSyntax) -> [EnumCaseElementSyntax] {
        decl.memberBlock.members.flatMap { member in
            member.decl.as(EnumCaseDeclSyntax.self)?.elements.map { $0 } ?? []
        }
    }
}

/// The diagnostics of one expansion, reported together so a user fixes them in one pass.
struct DiagnosticList {
    private var diagnostics: [Diagnostic] = []

    /// The diagnostics in source order, however they were found.
    var all: [Diagnostic] { diagnostics.sorted { $0.position < $1.position } }

    var isEmpty: Bool { diagnostics.isEmpty }

    mutating func add(_ node: some SyntaxProtocol, _ message: GenerableDiagnostic) {
        diagnostics.append(Diagnostic(node: node, message: message))
    }
}

extension PatternBindingSyntax {
    /// Whether the binding has a getter: observers alone (`willSet`, `didSet`) keep it stored.
    var isComputed: Bool {
        switch accessorBlock?.accessors {
        case nil: return false
        case .getter: return true
        case .accessors(let accessors):
            return accessors.contains { accessor in
                accessor.accessorSpecifier.tokenKind != .keyword(.willSet)
                    && accessor.accessorSpecifier.tokenKind != .keyword(.didSet)
            }
        }
    }
}

extension EnumDeclSyntax {
    fileprivate var declaresInitFromDecoder: Bool {
        memberBlock.members.contains { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
            return initializer.signature.parameterClause.parameters.isCoderParameter(label: "from", type: "Decoder")
        }
    }

    fileprivate var declaresEncodeToEncoder: Bool {
        memberBlock.members.contains { member in
            guard let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode" else {
                return false
            }
            return function.signature.parameterClause.parameters.isCoderParameter(label: "to", type: "Encoder")
        }
    }
}

extension FunctionParameterListSyntax {
    /// Whether this is the one parameter of `init(from: any Decoder)` or `encode(to: any Encoder)`.
    fileprivate func isCoderParameter(label: String, type: String) -> Bool {
        guard count == 1, let parameter = first, parameter.firstName.text == label else { return false }
        return parameter.type.trimmedDescription.hasSuffix(type)
    }
}
