#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An embedding model that runs here and on a remote server. Each request goes where the
/// ``ModelRouter`` says: the remote side embeds whole texts; the local side leaves
/// tokenizing and windowing to the capability. Both sides must give vectors of one
/// dimension, or an index built from one would not match the other.
final class RoutedEmbeddingsService: EmbeddingsService {
    let sides: RoutedService<any EmbeddingsService>
    private let primary: any EmbeddingsService

    /// Loads the side the routing policy would use first.
    static func load(
        model: ModelInfo,
        router: ModelRouter,
        local: RoutedService<any EmbeddingsService>.Loader?,
        remote: @escaping RoutedService<any EmbeddingsService>.Loader
    ) async throws(SDKException) -> RoutedEmbeddingsService {
        let (sides, first) = try await RoutedService<any EmbeddingsService>.load(
            model: model,
            router: router,
            local: local,
            remote: remote
        ) { await $0.unload() }
        return RoutedEmbeddingsService(sides: sides, primary: first)
    }

    private init(sides: RoutedService<any EmbeddingsService>, primary: any EmbeddingsService) {
        self.sides = sides
        self.primary = primary
    }

    var model: ModelInfo { sides.model }
    var dimension: Int { primary.dimension }
    var maxTokensPerWindow: Int { primary.maxTokensPerWindow }
    var isReranker: Bool { primary.isReranker }
    var pairSeparator: [Int32] { primary.pairSeparator }

    func tokenize(_ text: String) async throws -> [Int32] {
        try await local().tokenize(text)
    }

    func embed(windows: [[Int32]]) async throws -> [[Float]] {
        try await local().embed(windows: windows)
    }

    func embedWholeTexts(_ texts: [String]) async throws -> WholeTextEmbeddings? {
        try await sides.run(try sides.router.targets(for: model)) { target in
            guard target == .remote else { return nil }
            let remote = try await sides.service(for: .remote)
            guard remote.dimension == dimension else {
                throw SDKException(
                    .embeddingMismatch,
                    "The remote side of '\(model.id)' gives \(remote.dimension)-dimensional vectors, "
                        + "the local side \(dimension)"
                )
            }
            guard var whole = try await remote.embedWholeTexts(texts) else {
                throw SDKException(.internalError, "The remote side of '\(model.id)' did not embed whole texts")
            }
            whole.executedOn = .remote
            return whole
        }
    }

    /// The local side; for a remote-only model the remote one, whose token counts are estimates.
    private func local() async throws -> any EmbeddingsService {
        ModelRouter.hasLocal(model) ? try await sides.service(for: .local) : primary
    }

    func unload() async {
        await sides.unload()
    }
}
