import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tools served by another process (an MCP server), connected from a command line.
///
/// The contract between a host and a tool-server library it opens at run time: the
/// `RunAnywhereMCP` plugin installs a connector (``ToolServerConnector``) when a host opens
/// it with ``ToolServerConnector/open(plugin:)``. Keeping the MCP client out of the
/// host's own image keeps FoundationNetworking, libcurl and its TLS stack out of every
/// process that never talks to a tool server.
@_spi(Backend)
public protocol ToolServerConnection: Sendable {
    /// The server's name, as it reported it or as it was given.
    var name: String { get }
    /// The tools it serves.
    var tools: [ToolDefinition] { get }
    /// Registers every tool in `registry`, each calling the server.
    func register(in registry: ToolRegistry, prefix: String?) throws(SDKException)
    /// Ends the server.
    func close() async
}

/// Starts a tool server from a command line and connects to it (see ``ToolServerConnection``).
@_spi(Backend)
public struct ToolServerConnector: Sendable {
    /// The protocol it speaks, e.g. `mcp`.
    public let name: String
    private let connect: @Sendable (String) async throws(SDKException) -> any ToolServerConnection

    /// A connector for the protocol `name`.
    public init(
        name: String,
        connect: @escaping @Sendable (String) async throws(SDKException) -> any ToolServerConnection
    ) {
        self.name = name
        self.connect = connect
    }

    /// Starts the server that `commandLine` names and connects to it.
    public func connect(commandLine: String) async throws(SDKException) -> any ToolServerConnection {
        try await connect(commandLine)
    }

    private static let connectors = Mutex<[String: ToolServerConnector]>([:])

    /// Makes `connector` the one for its protocol; a plugin's entry point calls this.
    public static func install(_ connector: ToolServerConnector) {
        connectors.withLock { $0[connector.name] = connector }
    }

    /// The connector installed for `name`, if a plugin installed one.
    public static func installed(_ name: String) -> ToolServerConnector? {
        connectors.withLock { $0[name] }
    }

    /// The C function a tool-server plugin exports; it installs the plugin's connectors.
    public static let entryPoint = "runanywhere_tool_server_plugin_install"

    /// Opens the tool-server plugin at `path` (a shared library built against this core, see
    /// `scripts/build_plugins.sh`) and runs its entry point; opening it twice is harmless.
    ///
    /// - Throws: `.insecurePermissions` when other users could write the file or a folder
    ///   above it; `.invalidPlugin` when the file cannot be opened or lacks the entry point.
    public static func open(plugin path: String) throws(SDKException) {
        func refusal(_ error: SDKException) -> SDKException {
            SDKException(
                .invalidPlugin,
                "The tool-server plugin cannot be opened: \(error.message)",
                recovery: "Build it with scripts/build_plugins.sh; it belongs in plugins/tools/ next to the program"
            )
        }
        // Checked from its ELF headers first, as engine plugins are: no initializer of a file
        // that is not such a plugin runs; and only from a place no other user can write.
        do throws(SDKException) {
            try SharedLibraryFile.check(URL(fileURLWithPath: path), entryPoint: entryPoint)
        } catch {
            throw refusal(error)
        }
        let trusted = try TrustedCodeFile.check(path, what: "The tool-server plugin")
        let entry: @convention(c) () -> Void
        do throws(SDKException) {
            let library = try DynamicLibrary([trusted], flags: RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
            entry = try library.symbol(entryPoint)
        } catch {
            throw refusal(error)
        }
        entry()
    }
}
