import Foundation
import MCP
import RunAnywhere
import Synchronization

/// The tools of a Model Context Protocol server, started as a child process and spoken to over
/// stdio, ready to register in a `ToolRegistry`.
///
/// ```swift
/// let files = try await MCPToolSource(
///     commandLine: "npx -y @modelcontextprotocol/server-filesystem /tmp/notes"
/// )
/// print(files.tools.map(\.name))                // ["read_file", "write_file", ...]
/// try files.register(in: sdk.tools, prefix: "files_")
/// let answer = try await sdk.generateWithTools("What is in /tmp/notes/todo.txt?")
/// print(answer.text)
/// await files.close()
/// ```
///
/// The server leads a process group of its own. ``close()`` ends it the way the MCP stdio
/// transport asks: its stdin is closed, then the group gets `SIGTERM` and, after a grace
/// period, `SIGKILL`. A source dropped without `close()` starts the same shutdown when it is
/// released (tools registered in a registry hold their source until ``unregister(from:)``).
///
/// A server that exits or crashes makes calls throw `.backendError` saying how it ended and
/// what it last wrote to stderr; no call waits on a server that is gone, and none takes the
/// host down with it.
public final class MCPToolSource: Sendable {
    /// The server's name in messages: the `name` given at launch, else the name the server
    /// reports.
    public let name: String
    /// The server's tools, in the order it lists them. Each input schema is the server's JSON
    /// as written, member order included.
    public let tools: [ToolDefinition]
    /// What the server says about using its tools, for a system prompt; `nil` if it says
    /// nothing.
    public let instructions: String?
    /// The server's process id, for diagnostics; the process leads a group of the same id.
    public let processIdentifier: Int32

    private let session: MCPSession
    private let registrations = Mutex<[Registration]>([])

    /// The names this source registered in one registry, held weakly: the registry holds the
    /// source through the executors, not the other way round.
    private final class Registration: Sendable {
        weak let registry: ToolRegistry?
        let names: [String]

        init(registry: ToolRegistry, names: [String]) {
            self.registry = registry
            self.names = names
        }
    }

    /// Starts a server, connects to it over stdio, performs the `initialize` handshake and
    /// lists its tools.
    ///
    /// ```swift
    /// let weather = try await MCPToolSource(
    ///     command: "uvx",
    ///     arguments: ["mcp-weather-server"],
    ///     environment: ["WEATHER_API_KEY": key]
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - command: The executable: a path, or a name looked up in the `PATH` the server gets.
    ///   - arguments: Its arguments, passed as they are.
    ///   - environment: Variables added to the host's environment (replacing any of the same
    ///     name) for the server; `nil` passes the host's environment unchanged.
    ///   - name: The server's name in messages; `nil` uses the name it reports.
    ///   - initializeTimeout: How long the server may take to answer `initialize`, and then
    ///     each page of `tools/list`.
    /// - Throws: `.invalidInput` when no executable `command` is found; `.backendError`
    ///   when it cannot start, exits, answers wrongly or not within `initializeTimeout`
    ///   (the server is ended before the error is thrown); `.invalidTool` for a tool whose
    ///   input schema is not a JSON Schema.
    public init(
        command: String,
        arguments: [String] = [],
        environment: [String: String]? = nil,
        name: String? = nil,
        initializeTimeout: Duration = .seconds(10)
    ) async throws(SDKException) {
        var serverEnvironment = ProcessInfo.processInfo.environment
        serverEnvironment.merge(environment ?? [:]) { _, given in given }
        let executable = try Self.executable(command, searchPath: serverEnvironment["PATH"])
        let tap = ResponseTap()
        let process = try ServerProcess.spawn(
            executable: executable,
            arguments: [command] + arguments,
            environment: serverEnvironment,
            onLine: tap.inspect
        )
        let session = MCPSession(
            client: Client(name: "RunAnywhere", version: RunAnywhere.version),
            process: process,
            tap: tap,
            name: name ?? URL(fileURLWithPath: command).lastPathComponent
        )
        do {
            let server = try await Self.initialize(session, timeout: initializeTimeout)
            if name == nil {
                session.name = server.serverInfo.name
            }
            if server.capabilities.tools == nil {
                tools = []
            } else {
                tools = try await Self.listTools(session, timeout: initializeTimeout)
            }
            instructions = server.instructions
            session.isStarted = true
        } catch {
            // A server that answered wrongly, or not at all, is ended rather than left behind.
            await session.close(grace: .milliseconds(500))
            throw error
        }
        self.name = session.name
        self.session = session
        processIdentifier = process.pid
    }

    /// Starts a server from one command line, split into words as a shell would (quotes and
    /// backslashes work) but never run by one.
    ///
    /// ```swift
    /// let server = try await MCPToolSource(commandLine: "python3 'My Servers/notes.py' --readonly")
    /// ```
    ///
    /// - Parameters:
    ///   - commandLine: The command and its arguments. Nothing is expanded (no variables,
    ///     `~` or globs), and unquoted shell operators such as `|` or `>` are refused.
    ///   - environment: Variables added to the host's environment for the server.
    ///   - name: The server's name in messages; `nil` uses the name it reports.
    ///   - initializeTimeout: How long the server may take to answer `initialize`, and then
    ///     each page of `tools/list`.
    /// - Throws: `.invalidInput` for a command line that cannot be split, and the errors of
    ///   ``init(command:arguments:environment:name:initializeTimeout:)``.
    public convenience init(
        commandLine: String,
        environment: [String: String]? = nil,
        name: String? = nil,
        initializeTimeout: Duration = .seconds(10)
    ) async throws(SDKException) {
        let words = try CommandLineSplitter.split(commandLine)
        try await self.init(
            command: words[0],
            arguments: Array(words.dropFirst()),
            environment: environment,
            name: name,
            initializeTimeout: initializeTimeout
        )
    }

    deinit {
        session.abandon()
    }

    /// Whether the server is still there: not closed, not exited, its output still open.
    public var isConnected: Bool {
        !session.isClosed && !session.process.gone.isFired
    }

    /// Calls one of the server's ``tools``.
    ///
    /// The result's text is the output: JSON when it parses as JSON (`"5"` gives the integer
    /// 5), else the text as a string. Several text items are joined with newlines. A result
    /// with no text gives its `structuredContent`, else its content items as JSON.
    ///
    /// ```swift
    /// let sum = try await server.call("add", arguments: ["a": 2, "b": 3])   // 5
    /// ```
    ///
    /// - Parameters:
    ///   - name: The tool's name as the server lists it.
    ///   - arguments: A JSON object; the server validates it.
    ///   - timeout: How long to wait for the answer; `nil` waits as long as the server lives.
    ///     A call that times out or whose task is cancelled is cancelled on the server too.
    /// - Throws: `.toolNotFound` for a tool the server does not list; `.invalidInput` when
    ///   `arguments` is not an object; `.toolExecutionFailed` with the server's text when
    ///   the tool reports an error, and when the server refuses the call, the timeout
    ///   passes or the task is cancelled; `.backendError` once the server has exited or the
    ///   source is closed.
    public func call(
        _ name: String,
        arguments: JSONValue = [:],
        timeout: Duration? = nil
    ) async throws(SDKException) -> JSONValue {
        guard tools.contains(where: { $0.name == name }) else {
            throw SDKException(.toolNotFound, "The MCP server '\(self.name)' has no tool named '\(name)'")
        }
        guard case .object(let object) = arguments else {
            throw SDKException(
                .invalidInput,
                "The arguments of '\(name)' must be a JSON object, not \(arguments.typeName)"
            )
        }
        let parameters = CallTool.Parameters(name: name, arguments: Value(json: .object(object)).objectValue ?? [:])
        let result = try await session.exchange(
            CallTool.request(parameters),
            timeout: timeout,
            what: "tools/call '\(name)'",
            code: .toolExecutionFailed
        )
        return try Self.output(of: result)
    }

    /// Registers every tool in `registry`, each with an executor that calls the server.
    ///
    /// Registered names are `prefix` followed by the tool's name, with any character a tool
    /// name cannot have (anything but letters, digits, `_` and `-`) replaced by `_`; the
    /// executor calls the tool by its own name. Either every tool is registered or none is.
    ///
    /// ```swift
    /// try github.register(in: sdk.tools, prefix: "github_")   // github_create_issue, ...
    /// ```
    ///
    /// - Throws: `.invalidTool` when a name is already registered or not a valid tool name
    ///   (too long, say); `.backendError` when the source is closed or the server gone.
    public func register(in registry: ToolRegistry, prefix: String? = nil) throws(SDKException) {
        if session.isClosed {
            throw session.closedError
        }
        if session.process.gone.isFired {
            throw SDKException(.backendError, "The MCP server '\(name)' has exited; its tools cannot be registered")
        }
        var registered: [String] = []
        for tool in tools {
            var definition = tool
            definition.name = (prefix ?? "") + Self.toolName(tool.name)
            let serverName = tool.name
            do {
                try registry.register(definition) { [self] arguments in
                    try await self.call(serverName, arguments: arguments)
                }
            } catch {
                for name in registered {
                    registry.unregister(name)
                }
                throw error
            }
            registered.append(definition.name)
        }
        let registration = Registration(registry: registry, names: registered)
        registrations.withLock { $0.append(registration) }
    }

    /// Removes from `registry` every tool this source registered there.
    public func unregister(from registry: ToolRegistry) {
        let names = registrations.withLock { registrations -> [String] in
            let names = registrations.filter { $0.registry === registry }.flatMap(\.names)
            registrations.removeAll { $0.registry === registry || $0.registry == nil }
            return names
        }
        for name in names {
            registry.unregister(name)
        }
    }

    /// Ends the session and the server, and returns once the server's process is gone.
    ///
    /// The server's stdin is closed first, which asks an MCP server to exit; a server still
    /// running after a grace period gets `SIGTERM`, and after another, `SIGKILL`. Calls in
    /// flight, and every later call, throw `.backendError`. Registered tools stay in their
    /// registries, failing, until ``unregister(from:)``. Calling it again does no harm.
    public func close() async {
        await session.close()
    }

    // MARK: Helpers

    /// The path of `command`: itself when it has a `/`, else the first match in `searchPath`.
    private static func executable(_ command: String, searchPath: String?) throws(SDKException) -> String {
        let files = FileManager.default
        func isExecutable(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return files.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && files.isExecutableFile(atPath: path)
        }
        guard !command.isEmpty else {
            throw SDKException(.invalidInput, "The MCP server's command is empty")
        }
        if command.contains("/") {
            guard isExecutable(command) else {
                throw SDKException(.invalidInput, "No executable file at '\(command)' to start the MCP server")
            }
            return command
        }
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(
            separator: ":",
            omittingEmptySubsequences: false
        )
        for directory in directories {
            let path = (directory.isEmpty ? "." : String(directory)) + "/" + command
            if isExecutable(path) {
                return path
            }
        }
        throw SDKException(
            .invalidInput,
            "No executable named '\(command)' on the PATH to start the MCP server",
            recovery: "Install it, or give its full path"
        )
    }

    private static func initialize(
        _ session: MCPSession,
        timeout: Duration
    ) async throws(SDKException) -> Initialize.Result {
        let transport = ServerProcessTransport(process: session.process)
        // Servers may ping their client; the SDK client answers nothing it has no handler for.
        await session.client.withMethodHandler(Ping.self) { _ in Empty() }
        let ending = await session.race(timeout: timeout) { [client = session.client] in
            try await client.connect(transport: transport)
        }
        switch ending {
        case .answered(.success(let result)):
            return result
        case .answered(.failure(let error)):
            throw await session.failure(error, answer: nil, what: "initialize", code: .backendError)
        case .gone:
            throw await session.goneError("initialize")
        case .timedOut(let timeout):
            throw SDKException(
                .backendError,
                "The MCP server '\(session.name)' did not answer initialize within \(MCPSession.seconds(timeout))",
                recovery: "Check that the command starts an MCP server on stdio, or allow a longer initializeTimeout"
            )
        case .cancelled:
            throw SDKException(.backendError, "Starting the MCP server '\(session.name)' was cancelled")
        }
    }

    private static func listTools(
        _ session: MCPSession,
        timeout: Duration
    ) async throws(SDKException) -> [ToolDefinition] {
        var tools: [ToolDefinition] = []
        var cursor: String?
        var cursors: Set<String> = []
        repeat {
            let request = cursor.map { ListTools.request(.init(cursor: $0)) } ?? ListTools.request(.init())
            let page = try await session.exchange(request, timeout: timeout, what: "tools/list", code: .backendError)
            for tool in page["tools"]?.arrayValue ?? [] {
                let definition = try toolDefinition(tool, server: session.name)
                // A server listing a name twice is wrong; the first is the one a call reaches.
                if !tools.contains(where: { $0.name == definition.name }) {
                    tools.append(definition)
                }
            }
            cursor = page["nextCursor"]?.stringValue
            if let next = cursor, !cursors.insert(next).inserted {
                throw SDKException(
                    .backendError,
                    "The MCP server '\(session.name)' repeats the tools/list cursor '\(next)'"
                )
            }
        } while cursor != nil
        return tools
    }

    private static func toolDefinition(_ tool: JSONValue, server: String) throws(SDKException) -> ToolDefinition {
        guard let name = tool["name"]?.stringValue else {
            throw SDKException(.backendError, "The MCP server '\(server)' lists a tool without a name")
        }
        let parameters: JSONSchema
        do {
            parameters = try JSONSchema(tool["inputSchema"] ?? ["type": "object"])
        } catch {
            throw SDKException(
                .invalidTool,
                "The input schema of tool '\(name)' on the MCP server '\(server)' is not a JSON Schema: "
                    + error.message
            )
        }
        let description = tool["description"]?.stringValue ?? tool["title"]?.stringValue ?? ""
        return ToolDefinition(name: name, description: description, parameters: parameters)
    }

    /// The output of a `tools/call` result, or its error.
    static func output(of result: JSONValue) throws(SDKException) -> JSONValue {
        let content = result["content"]?.arrayValue ?? []
        let texts = content.compactMap { item in item["type"] == "text" ? item["text"]?.stringValue : nil }
        let text = texts.joined(separator: "\n")
        if result["isError"]?.boolValue == true {
            throw SDKException(.toolExecutionFailed, texts.isEmpty ? "The tool reported an error" : text)
        }
        if !texts.isEmpty {
            return (try? JSONValue(parsing: text)) ?? .string(text)
        }
        if let structured = result["structuredContent"] {
            return structured
        }
        return .array(content)
    }

    /// `name` with every character a ``ToolDefinition`` name cannot have replaced by `_`.
    private static func toolName(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
                        || scalar == "_" || scalar == "-" ? scalar : "_"
                }
            )
        )
    }
}
