import RunAnywhereMacrosImplementation
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

// The implementations live in a plain library so the macro tests can link them without
// depending on this macro target, which would move every test target to the host build
// and compile the whole package twice. The compiler looks macros up by this module's name
// and the type's, hence the forwarding types below.

/// The compiler plugin behind `RunAnywhereGenerable`'s `@Generable` and `@Guide`.
@main
struct RunAnywhereMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [GenerableMacro.self, GuideMacro.self]
}

/// `@Generable`, as `RunAnywhereMacrosImplementation.GenerableMacro` expands it.
struct GenerableMacro: ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try RunAnywhereMacrosImplementation.GenerableMacro.expansion(
            of: node,
            attachedTo: declaration,
            providingExtensionsOf: type,
            conformingTo: protocols,
            in: context
        )
    }
}

/// `@Guide`, as `RunAnywhereMacrosImplementation.GuideMacro` checks it.
struct GuideMacro: PeerMacro {
    static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try RunAnywhereMacrosImplementation.GuideMacro.expansion(
            of: node,
            providingPeersOf: declaration,
            in: context
        )
    }
}
