@_spi(Backend) import RunAnywhere
import RunAnywhereMCP

/// The MCP client as a plugin: `scripts/build_plugins.sh` links this with `RunAnywhereMCP` and
/// the MCP SDK into `plugins/tools/libRunAnywhereMCPPlugin.so`, the core's symbols left for the
/// host. The CLI opens it for `chat --mcp`, so its other commands map none of the MCP SDK's
/// libraries (FoundationNetworking, libcurl and its TLS stack).
@_cdecl("runanywhere_tool_server_plugin_install")
public func runanywhereToolServerPluginInstall() {
    ToolServerConnector.install(
        ToolServerConnector(name: "mcp") { commandLine throws(SDKException) in
            MCPConnection(source: try await MCPToolSource(commandLine: commandLine))
        }
    )
}

/// An MCP server, as a host that opened this plugin sees it.
struct MCPConnection: ToolServerConnection {
    let source: MCPToolSource

    var name: String { source.name }
    var tools: [ToolDefinition] { source.tools }

    func register(in registry: ToolRegistry, prefix: String?) throws(SDKException) {
        try source.register(in: registry, prefix: prefix)
    }

    func close() async {
        await source.close()
    }
}
