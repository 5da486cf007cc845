#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A language model that runs here and on a remote server. The LLM capability asks it for
/// the side of each request (``sides``); everything else (templates, token counts, LoRA)
/// goes to the side loaded first.
final class RoutedLLMService: LLMService {
    let sides: RoutedService<any LLMService>
    private let primary: any LLMService

    /// Loads the side the routing policy would use first.
    static func load(
        model: ModelInfo,
        router: ModelRouter,
        local: RoutedService<any LLMService>.Loader?,
        remote: @escaping RoutedService<any LLMService>.Loader
    ) async throws(SDKException) -> RoutedLLMService {
        let (sides, first) = try await RoutedService<any LLMService>.load(
            model: model,
            router: router,
            local: local,
            remote: remote
        ) { await $0.unload() }
        return RoutedLLMService(sides: sides, primary: first)
    }

    private init(sides: RoutedService<any LLMService>, primary: any LLMService) {
        self.sides = sides
        self.primary = primary
    }

    var model: ModelInfo { sides.model }
    var contextLength: Int { primary.contextLength }
    var chatTemplate: String? { primary.chatTemplate }
    var promptFormatting: PromptFormatting { primary.promptFormatting }
    var imageMarker: String? { primary.imageMarker }

    func formatChat(_ messages: [ChatMessage], addAssistantTurn: Bool) async throws -> String {
        try await primary.formatChat(messages, addAssistantTurn: addAssistantTurn)
    }

    func tokenCount(_ text: String) async throws -> Int {
        try await primary.tokenCount(text)
    }

    func generate(
        _ request: LLMServiceRequest,
        onToken: @escaping @Sendable ([UInt8]) -> TokenDisposition
    ) async throws -> LLMServiceResult {
        try await primary.generate(request, onToken: onToken)
    }

    func logLikelihoods(of continuations: [String], after prompt: String) async throws -> [Double] {
        try await primary.logLikelihoods(of: continuations, after: prompt)
    }

    func loadLoRAAdapter(id: String, file: URL) async throws {
        try await primary.loadLoRAAdapter(id: id, file: file)
    }

    func unloadLoRAAdapter(id: String) async {
        await primary.unloadLoRAAdapter(id: id)
    }

    func setDefaultLoRAAdapters(_ adapters: [LoRAAdapterSelection]) async throws {
        try await primary.setDefaultLoRAAdapters(adapters)
    }

    func unload() async {
        await sides.unload()
    }
}
