import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Guide`: a marker that `@Generable` reads. It adds nothing, and only checks that it
/// stands where `@Generable` will see it.
public struct GuideMacro: PeerMacro {
    /// Expands to nothing; reports a `@Guide` on anything but a decoded stored property.
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            !variable.modifiers.contains(.static), !variable.modifiers.contains(.class),
            !variable.bindings.contains(where: \.isComputed)
        else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: GenerableDiagnostic.guideNotOnStoredProperty)
            ])
        }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        if isLet, variable.bindings.allSatisfy({ $0.initializer != nil }) {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: GenerableDiagnostic.guideOnInitializedLet)
            ])
        }
        return []
    }
}
