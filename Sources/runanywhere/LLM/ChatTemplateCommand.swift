import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereLlamaCPP

/// `runanywhere chat-template …`: a model's chat template, rendered as the model sees it.
struct ChatTemplateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-template",
        abstract: "Render a conversation with a model's chat template.",
        subcommands: [Render.self]
    )

    struct Render: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Print the prompt a chat template makes of a conversation.",
            discussion: """
                The template is the model's own (its GGUF `tokenizer.chat_template`) or a Jinja file. \
                It is rendered by llama.cpp's Jinja engine with the variables Hugging Face transformers' \
                apply_chat_template passes, so the text is the one the model was trained on. \
                --messages holds a JSON array of OpenAI-style messages; --tools an array of OpenAI-style \
                function definitions. --var name=value sets a template variable, the value read as JSON \
                when it is JSON (true, 3, "text") and as text otherwise, e.g. --var enable_thinking=false.
                """
        )
        @OptionGroup var global: GlobalOptions
        @Option(help: "A registered GGUF model whose template to use.") var model: String?
        @Option(help: "A Jinja template file to use instead.") var template: String?
        @Option(name: .customLong("bos-token"), help: "With --template: the text of bos_token.") var bosToken = ""
        @Option(name: .customLong("eos-token"), help: "With --template: the text of eos_token.") var eosToken = ""
        @Option(help: "A JSON file with an array of OpenAI-style messages.") var messages: String
        @Option(help: "A JSON file with an array of OpenAI-style function definitions.") var tools: String?
        @Flag(name: .customLong("no-generation-prompt"), help: "Do not open the assistant's turn at the end.")
        var noGenerationPrompt = false
        @Option(name: .customLong("var"), help: "A template variable, name=value (repeatable).")
        var variables: [String] = []

        func validate() throws {
            guard (model == nil) != (template == nil) else {
                throw ValidationError("Give exactly one of --model and --template")
            }
            for item in variables where !item.contains("=") {
                throw ValidationError("--var takes name=value, not '\(item)'")
            }
        }

        func execute() async throws {
            let chatTemplate: ChatTemplate
            if let model {
                try await CLI.start(global)
                guard let sdk = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
                chatTemplate = try ChatTemplate(model: model, in: sdk)
            } else {
                let source = try CLI.readText(template ?? "", what: "chat template")
                chatTemplate = try ChatTemplate(source: source, bosToken: bosToken, eosToken: eosToken)
            }
            let conversation = try ChatMessage.list(openAI: try CLI.readText(messages, what: "messages"))
            let toolList = try tools.map { try ToolDefinition.list(openAI: try CLI.readText($0, what: "tool list")) }
            var values: [String: JSONValue] = [:]
            for item in variables {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let text = String(parts[1])
                values[String(parts[0])] = (try? JSONValue(parsing: text)) ?? .string(text)
            }
            let prompt = try chatTemplate.render(
                messages: conversation,
                tools: toolList ?? [],
                options: ChatTemplateOptions(addGenerationPrompt: !noGenerationPrompt, variables: values)
            )
            CLI.write(prompt)
        }
    }
}
