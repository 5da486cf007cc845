import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The download strategies of one SDK instance: the app's, latest first, then HTTP(S).
package final class DownloadStrategies: Sendable {
    private let registered = Mutex<[any DownloadStrategy]>([])
    private let http = HTTPDownloadStrategy()

    /// Adds a strategy, asked before those registered earlier.
    ///
    /// - Throws: `.invalidInput` for a strategy whose name is empty or already registered.
    func register(_ strategy: any DownloadStrategy) throws(SDKException) {
        let name = strategy.name.trimmedSpaces()
        try registered.withLock { (strategies: inout [any DownloadStrategy]) throws(SDKException) in
            guard !name.isEmpty, name != http.name, !strategies.contains(where: { $0.name == name }) else {
                throw SDKException(
                    .invalidInput,
                    "A download strategy needs a name of its own ('\(strategy.name)' is empty or taken)"
                )
            }
            strategies.insert(strategy, at: 0)
        }
    }

    /// Every strategy in the order they are asked.
    var all: [any DownloadStrategy] { registered.withLock { $0 } + [http] }

    /// Whether some strategy fetches `url`.
    func canHandle(_ url: URL) -> Bool { all.contains { $0.canHandle(url) } }

    /// The strategy that fetches `url`.
    ///
    /// - Throws: `.invalidInput` when none does.
    func strategy(for url: URL) throws(SDKException) -> any DownloadStrategy {
        guard let strategy = all.first(where: { $0.canHandle(url) }) else {
            throw Self.unhandled(url)
        }
        return strategy
    }

    static func unhandled(_ url: URL) -> SDKException {
        SDKException(
            .invalidInput,
            "'\(url.absoluteString)' is not an http or https URL, and no download strategy handles it",
            recovery: url.scheme.map { "Register a DownloadStrategy for '\($0)' URLs (registerDownloadStrategy)" }
        )
    }
}
