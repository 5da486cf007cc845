import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BenchCommand {
    /// Tool-choice and argument accuracy on a set of requests with known answers, for each
    /// routing method, on the same model.
    struct Tools: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "tools",
            abstract: "Tool-choice and argument accuracy with and without the router (a call is due in each request)."
        )

        @OptionGroup var output: BenchOutputOptions
        @Option(help: "Model id.") var model = CLI.Defaults.llm
        @Option(help: "The request set (JSON: tools and requests with answers).")
        var fixture = "Tests/Fixtures/tool-calling-requests.json"
        @Option(help: "Routing methods to compare, comma-separated (model, likelihood, lexical, hybrid).")
        var routings = "model,likelihood,lexical,hybrid"
        @Option(help: "Decoding threads.") var threads = ProcessInfo.processInfo.activeProcessorCount
        @Flag(name: .customLong("schema-prompts"), help: "Also compare what the model is told of a schema.")
        var schemaPrompts = false

        struct Report: Encodable {
            var model: String
            var requests: Int
            var tools: Int
            var results: [ToolCallingEvaluation.Report]
            /// Argument accuracy of generateStructured with the right tool's schema, by prompt style.
            var structuredArgumentAccuracy: [String: Double]
        }

        func execute() async throws {
            let methods = try routings.split(separator: ",").map { name in
                guard let routing = ToolRouting(rawValue: String(name)) else {
                    throw ValidationError("Unknown routing '\(name)'")
                }
                return routing
            }
            let evaluation = try ToolCallingEvaluation(contentsOf: URL(fileURLWithPath: fixture))
            try await CLI.start(output.global)
            try await RunAnywhere.loadModel(model, threads: threads)
            guard let sdk = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
            var options = ToolCallingEvaluation.defaultOptions
            options.threads = threads
            var results: [ToolCallingEvaluation.Report] = []
            for routing in methods {
                results.append(
                    try await evaluation.run(
                        on: sdk,
                        routing: routing,
                        options: options
                    )
                )
            }
            var structured: [String: Double] = [:]
            if schemaPrompts {
                for style in StructuredOutputOptions.SchemaPrompt.allCases {
                    structured[style.rawValue] = try await evaluation.structuredArgumentAccuracy(
                        on: sdk,
                        schemaInPrompt: style,
                        options: options
                    )
                }
            }
            let report = Report(
                model: model,
                requests: evaluation.cases.count,
                tools: evaluation.tools.count,
                results: results,
                structuredArgumentAccuracy: structured
            )
            if output.json { return try CLI.printJSON(report) }
            print("Tool calling — \(model), \(evaluation.cases.count) requests over \(evaluation.tools.count) tools")
            for result in results {
                print(
                    "  \(result.routing.rawValue.padded(to: 11))"
                        + " tool \(CLI.format(result.toolAccuracy * 100))%"
                        + "  arguments \(CLI.format(result.argumentAccuracy * 100))%"
                        + "  valid \(CLI.format(result.validArguments * 100))%"
                        + "  \(CLI.format(result.meanMs)) ms/request"
                )
            }
            for (style, accuracy) in structured.sorted(by: { $0.key < $1.key }) {
                print("  generateStructured, schema in prompt \(style): arguments \(CLI.format(accuracy * 100))%")
            }
        }
    }
}
