import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereMCP

#if canImport(Glibc)
import Glibc
#endif

/// Against scripts/mcp_test_server.py, a real MCP server on the Python `mcp` package. Serialized
/// because several tests check that this process has no child left.
@Suite("MCP tool source against a real stdio server", .serialized)
struct MCPToolSourceTests {
    /// The repository's copy of the server (the test file may be reached through a symlink).
    static let script = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/mcp_test_server.py").path

    /// The Python tools folder from scripts/env.sh, or nil with an issue recorded.
    static func pythonPath() -> String? {
        guard let tools = ProcessInfo.processInfo.environment["RUNANYWHERE_PYTHON_TOOLS"] else {
            Issue.record(
                "RUNANYWHERE_PYTHON_TOOLS is not set: run the tests with `make test`, or after `source scripts/env.sh`"
            )
            return nil
        }
        return tools
    }

    /// The test server; generous start-up time, for a loaded machine.
    static func launchServer() async throws -> MCPToolSource? {
        guard let pythonPath = pythonPath() else { return nil }
        return try await MCPToolSource(
            command: "python3",
            arguments: [script],
            environment: ["PYTHONPATH": pythonPath, Self.marker: "1"],
            initializeTimeout: .seconds(60)
        )
    }

    /// In the environment of every server these tests start, so that `children()` counts
    /// only them: other suites run beside these in the same process and start programs too.
    static let marker = "RUNANYWHERE_MCP_TEST_SERVER"

    /// The running servers these tests started, whose parent is this process.
    static func children() -> [Int32] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
                environ.split(separator: 0).contains(where: { $0.starts(with: Array("\(marker)=".utf8)) })
            else { return false }
            // The command name, in parentheses, may hold spaces; the parent pid is the second
            // field after it.
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let nameEnd = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }

    /// The processes, anywhere, with `argument` among their arguments.
    static func processes(withArgument argument: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == argument }
        }
    }

    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    @Test("Launching from a command line lists the server's tools with their input schemas as written")
    func listsTools() async throws {
        guard let pythonPath = Self.pythonPath() else { return }
        let server = try await MCPToolSource(
            commandLine: "python3 '\(Self.script)'",
            environment: ["PYTHONPATH": pythonPath, Self.marker: "1"],
            initializeTimeout: .seconds(60)
        )
        #expect(server.name == "runanywhere-test-server")
        #expect(server.instructions?.contains("Test tools") == true)
        #expect(server.tools.map(\.name) == ["add", "reverse_text", "lookup_capital", "slow_echo"])
        let add = try #require(server.tools.first)
        #expect(add.description == "Adds two integers and returns their sum.")
        #expect(add.parameters.value["required"] == ["a", "b"])
        #expect(add.parameters.value["properties"]?["a"]?["type"] == "integer")
        let slowEcho = try #require(server.tools.last)
        // The server's member order, which the MCP SDK's dictionaries would have lost.
        #expect(slowEcho.parameters.value["properties"]?.objectValue?.keys == ["text", "seconds"])
        #expect(slowEcho.parameters.value.objectValue?.keys.first == "properties")
        #expect(slowEcho.parameters.value["properties"]?["seconds"]?["maximum"] == .integer(300))
        #expect(slowEcho.parameters.value["required"] == ["text", "seconds"])
        for tool in server.tools {
            try tool.validate()
        }
        await server.close()
    }

    @Test("Calls return the tools' output: an integer sum, a reversed string, a capital")
    func callsTools() async throws {
        guard let server = try await Self.launchServer() else { return }
        #expect(try await server.call("add", arguments: ["a": 2, "b": 3]) == .integer(5))
        #expect(try await server.call("add", arguments: ["a": -7, "b": 100_000_000_000]) == .integer(99_999_999_993))
        #expect(try await server.call("reverse_text", arguments: ["text": "hello, wörld"]) == "dlröw ,olleh")
        #expect(try await server.call("lookup_capital", arguments: ["country": "France"]) == "Paris")
        // Concurrent calls each get their own answer.
        let sums = try await withThrowingTaskGroup(of: (Int64, JSONValue).self) { group in
            for number in Int64(0)..<20 {
                group.addTask {
                    (number, try await server.call("add", arguments: ["a": .integer(number), "b": .integer(number)]))
                }
            }
            return try await group.reduce(into: [Int64: JSONValue]()) { $0[$1.0] = $1.1 }
        }
        #expect(sums.count == 20)
        for (number, sum) in sums {
            #expect(sum == .integer(2 * number))
        }
        await server.close()
    }

    @Test("A tool's error, the server's own argument check and an unknown tool are typed errors")
    func toolErrors() async throws {
        guard let server = try await Self.launchServer() else { return }
        let unknownCountry = await expectCode(.toolExecutionFailed) {
            _ = try await server.call("lookup_capital", arguments: ["country": "Atlantis"])
        }
        #expect(unknownCountry?.message.contains("unknown country: 'Atlantis'") == true)
        // Called directly, nothing validates before the server, which refuses it itself.
        let badArguments = await expectCode(.toolExecutionFailed) {
            _ = try await server.call("add", arguments: ["a": "two", "b": 3])
        }
        #expect(badArguments?.message.isEmpty == false)
        _ = await expectCode(.toolNotFound) {
            _ = try await server.call("multiply", arguments: ["a": 2, "b": 3])
        }
        _ = await expectCode(.invalidInput) {
            _ = try await server.call("add", arguments: [2, 3])
        }
        #expect(try await server.call("add", arguments: ["a": 1, "b": 1]) == .integer(2))
        await server.close()
    }

    @Test("Registered tools run through the registry, and invalid arguments are refused before the server")
    func registryExecution() async throws {
        guard let server = try await Self.launchServer() else { return }
        let registry = ToolRegistry()
        try server.register(in: registry, prefix: "demo_")
        #expect(
            registry.definitions.map(\.name) == [
                "demo_add", "demo_reverse_text", "demo_lookup_capital", "demo_slow_echo",
            ]
        )
        let sum = await registry.execute(ToolCall(id: "1", name: "demo_add", arguments: ["a": 2, "b": 3]))
        #expect(sum.output == .integer(5))
        #expect(sum.error == nil)
        let capital = await registry.execute(
            ToolCall(id: "2", name: "demo_lookup_capital", arguments: ["country": "Japan"])
        )
        #expect(capital.output == "Tokyo")
        let failed = await registry.execute(
            ToolCall(id: "3", name: "demo_lookup_capital", arguments: ["country": "Mars"])
        )
        #expect(failed.error?.contains("unknown country") == true)
        // The registry's message, not the server's: the call never left the process.
        let invalid = await registry.execute(ToolCall(id: "4", name: "demo_add", arguments: ["a": "two", "b": 3]))
        #expect(invalid.error?.hasPrefix("Invalid arguments") == true)
        let missing = await registry.execute(ToolCall(id: "5", name: "demo_reverse_text", arguments: [:]))
        #expect(missing.error?.hasPrefix("Invalid arguments") == true)
        // Registering the same names again fails and leaves the registry as it was.
        #expect(
            performing: { try server.register(in: registry, prefix: "demo_") },
            throws: { error in
                (error as? SDKException)?.code == .invalidTool
            }
        )
        #expect(registry.definitions.count == 4)
        server.unregister(from: registry)
        #expect(registry.definitions.isEmpty)
        await server.close()
    }

    @Test("A slow tool fails at the registry's timeout, and the server still answers afterwards")
    func registryTimeout() async throws {
        guard let server = try await Self.launchServer() else { return }
        let registry = ToolRegistry()
        try server.register(in: registry)
        let late = await registry.execute(
            ToolCall(id: "1", name: "slow_echo", arguments: ["text": "late", "seconds": 60]),
            timeout: 0.5
        )
        // The tool sleeps a minute: only the timeout can end the call with this error.
        #expect(late.error?.contains("did not answer") == true)
        // The call was cancelled on the server too, which keeps serving.
        let sum = await registry.execute(ToolCall(id: "2", name: "add", arguments: ["a": 20, "b": 22]))
        #expect(sum.output == .integer(42))
        let echo = await registry.execute(
            ToolCall(id: "3", name: "slow_echo", arguments: ["text": "now", "seconds": 0])
        )
        #expect(echo.output == "now")
        // The source's own timeout does the same for a direct call.
        let direct = await expectCode(.toolExecutionFailed) {
            _ = try await server.call(
                "slow_echo",
                arguments: ["text": "late", "seconds": 60],
                timeout: .milliseconds(300)
            )
        }
        #expect(direct?.message.contains("did not answer") == true)
        #expect(try await server.call("add", arguments: ["a": 1, "b": 2]) == .integer(3))
        server.unregister(from: registry)
        await server.close()
    }

    /// A bare JSON-RPC server, no MCP package: tools listed over three pages, with names a
    /// registry cannot take as they are, and calls answered with structured content only.
    static let pagedServer = """
        import json, sys
        for line in sys.stdin:
            message = json.loads(line)
            if "id" not in message:
                continue
            method = message["method"]
            if method == "initialize":
                result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                          "serverInfo": {"name": "paged", "version": "1"}}
            elif method == "tools/list":
                page = int((message.get("params") or {}).get("cursor") or 0)
                schema = {"type": "object", "properties": {"zeta": {"type": "number"}, "alpha": {"type": "integer"}}}
                result = {"tools": [{"name": f"tool.{page}", "title": f"Tool {page}", "inputSchema": schema}]}
                if page < 2:
                    result["nextCursor"] = str(page + 1)
            elif method == "tools/call":
                result = {"content": [], "structuredContent": {"echo": message["params"]["arguments"]}}
            else:
                error = {"code": -32601, "message": "unknown method " + method}
                print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}), flush=True)
                continue
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
        """

    @Test("Tool lists are followed over every page, and odd names are made registrable")
    func pagedTools() async throws {
        let server = try await MCPToolSource(
            command: "python3",
            arguments: ["-c", Self.pagedServer],
            environment: [Self.marker: "1"],
            initializeTimeout: .seconds(60)
        )
        #expect(server.name == "paged")
        #expect(server.tools.map(\.name) == ["tool.0", "tool.1", "tool.2"])
        #expect(server.tools.map(\.description) == ["Tool 0", "Tool 1", "Tool 2"])
        #expect(server.tools[0].parameters.value["properties"]?.objectValue?.keys == ["zeta", "alpha"])
        let echo = try await server.call("tool.1", arguments: ["zeta": 0.5, "alpha": 1])
        #expect(echo == ["echo": ["zeta": 0.5, "alpha": 1]])
        #expect(echo["echo"]?["alpha"] == .integer(1))
        let registry = ToolRegistry()
        try server.register(in: registry, prefix: "paged_")
        #expect(registry.definitions.map(\.name) == ["paged_tool_0", "paged_tool_1", "paged_tool_2"])
        let result = await registry.execute(ToolCall(id: "1", name: "paged_tool_2", arguments: ["alpha": 7]))
        #expect(result.output == ["echo": ["alpha": 7]])
        server.unregister(from: registry)
        await server.close()
        #expect(Self.children().isEmpty)
    }

    @Test("A command that does not exist is invalidInput from launch, and starts nothing")
    func missingCommand() async {
        _ = await expectCode(.invalidInput) {
            _ = try await MCPToolSource(command: "runanywhere-no-such-mcp-server")
        }
        _ = await expectCode(.invalidInput) {
            _ = try await MCPToolSource(commandLine: "/nonexistent/mcp-server --stdio")
        }
        _ = await expectCode(.invalidInput) {
            _ = try await MCPToolSource(commandLine: "python3 server.py > log.txt")
        }
        #expect(Self.children().isEmpty)
    }

    @Test("A server that exits before answering is a backendError with its status and last error output")
    func serverExitsAtStart() async {
        let error = await expectCode(.backendError) {
            _ = try await MCPToolSource(
                command: "python3",
                arguments: ["-c", "import sys; sys.stderr.write('no tools today\\n'); sys.exit(3)"],
                environment: [Self.marker: "1"],
                initializeTimeout: .seconds(60)
            )
        }
        #expect(error?.message.contains("exited (status 3)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("no tools today") == true, "\(String(describing: error))")
        #expect(Self.children().isEmpty)
    }

    @Test("A server that never answers initialize is a backendError after the timeout, and is ended")
    func initializeTimeout() async {
        let error = await expectCode(.backendError) {
            _ = try await MCPToolSource(
                command: "sleep",
                arguments: ["600"],
                environment: [Self.marker: "1"],
                initializeTimeout: .milliseconds(300)
            )
        }
        // `sleep 600` never answers: only the timeout can end the wait with this error.
        #expect(error?.message.contains("did not answer initialize") == true)
        #expect(Self.children().isEmpty)
    }

    @Test("A server that ignores SIGTERM is killed, together with the processes it started")
    func stubbornServer() async {
        // The marker finds the grandchild, which is not this process's child.
        let marker = "613.25"
        let error = await expectCode(.backendError) {
            _ = try await MCPToolSource(
                command: "sh",
                arguments: ["-c", "trap '' TERM; sleep \(marker); true"],
                environment: [Self.marker: "1"],
                // Long enough that the shell has set its trap, however busy the machine: a
                // SIGTERM before it would end the server without the SIGKILL this is about.
                initializeTimeout: .seconds(3)
            )
        }
        #expect(error?.message.contains("did not answer initialize") == true)
        #expect(Self.children().isEmpty)
        // The grandchild is not ours to reap: SIGKILL reaches it at once, but it may take a
        // moment to leave /proc after the error is thrown (a CI run caught it still there).
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.processes(withArgument: marker).isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.processes(withArgument: marker).isEmpty)
    }

    @Test("Killing the server mid-session makes calls, in flight and later, fail with backendError once it has exited")
    func serverKilled() async throws {
        guard let server = try await Self.launchServer() else { return }
        let inFlight = Task {
            try await server.call("slow_echo", arguments: ["text": "never", "seconds": 120])
        }
        #expect(kill(server.processIdentifier, SIGKILL) == 0)
        let error = await expectCode(.backendError) {
            _ = try await inFlight.value
        }
        #expect(error?.message.contains("exited") == true, "\(String(describing: error))")
        let next = await expectCode(.backendError) {
            _ = try await server.call("add", arguments: ["a": 2, "b": 3])
        }
        #expect(next?.message.contains("exited (signal 9)") == true, "\(String(describing: next))")
        #expect(!server.isConnected)
        #expect(
            performing: { try server.register(in: ToolRegistry()) },
            throws: { error in
                (error as? SDKException)?.code == .backendError
            }
        )
        await server.close()
        #expect(Self.children().isEmpty)
    }

    @Test("close() ends the server process, and later calls fail with backendError")
    func closeEndsServer() async throws {
        guard let server = try await Self.launchServer() else { return }
        let pid = server.processIdentifier
        #expect(Self.children().contains(pid))
        #expect(server.isConnected)
        await server.close()
        #expect(!Self.isRunning(pid))
        #expect(Self.children().isEmpty)
        #expect(!server.isConnected)
        let error = await expectCode(.backendError) {
            _ = try await server.call("add", arguments: ["a": 2, "b": 3])
        }
        #expect(error?.message.contains("closed") == true)
        await server.close()
    }

    @Test("close() during a call fails the call rather than leaving it waiting")
    func closeDuringCall() async throws {
        guard let server = try await Self.launchServer() else { return }
        let inFlight = Task {
            try await server.call("slow_echo", arguments: ["text": "never", "seconds": 120])
        }
        await server.close()
        _ = await expectCode(.backendError) {
            _ = try await inFlight.value
        }
        #expect(Self.children().isEmpty)
    }
}
