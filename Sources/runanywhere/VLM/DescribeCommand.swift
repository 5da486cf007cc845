import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One question about an image, answered by a vision-language model.
struct DescribeCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Describe an image (or answer --prompt about it) with a vision-language model.",
        discussion: """
            The model is a vlm imported with its projector: `runanywhere models import MODEL.gguf --id ID \
            --category vlm --framework llamacpp --projector MMPROJ.gguf`. The image is a PNG or JPEG file. \
            --json prints one object with text, image_tokens, prompt_tokens, tokens_generated and timings.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The image: a PNG or JPEG file.") var image: String
    @Option(help: "Vision-language model id.") var model: String
    @Option(help: "What to ask about the image.") var prompt: String = VLMGenerationOptions.describePrompt
    @OptionGroup var sampling: SamplingOptions
    @Option(name: .customLong("context-length"), help: "Context size in tokens.") var contextLength: Int?
    @Flag(name: .long, help: "Print one JSON object with the text and metrics.") var json = false

    func execute() async throws {
        try await CLI.start(global)
        // The image is checked before the model loads: a bad file fails at once.
        let picture = try VLMImage.fromFilePath(image).prepared().image
        let options = VLMGenerationOptions(prompt: prompt, generation: sampling.options)
        try await RunAnywhere.loadVLMModel(model, contextLength: contextLength)
        if json {
            return try CLI.printJSON(await RunAnywhere.processImage(picture, options: options))
        }
        for try await event in try await RunAnywhere.generateStream(
            prompt,
            images: [picture],
            options: options.generation
        ) {
            switch event {
            case .token(let text, let isThinking):
                if !isThinking { CLI.write(text) }
            case .completed(let r):
                CLI.write("\n")
                CLI.printError(
                    "[\(r.imageTokens ?? 0) image tokens, \(r.generatedTokens) tokens, "
                        + "first token \(CLI.format(r.timeToFirstTokenMs)) ms, \(r.finishReason.rawValue)]"
                )
            }
        }
    }
}
