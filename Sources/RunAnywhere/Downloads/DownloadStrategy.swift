#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches the files of models whose URLs it handles: the SDK's HTTP(S) transfer is one
/// (``HTTPDownloadStrategy``); an app adds its own for other schemes with
/// ``RunAnywhereSDK/registerDownloadStrategy(_:)``.
///
/// A strategy only moves bytes. The download manager keeps everything else the same for
/// every strategy: the work folder and its lock, the disk-space check, progress, SHA-256
/// checksums, archive extraction, installation, and cleaning up after a failure.
///
/// ```swift
/// /// `myapp-models://catalog/NAME` files come from the app's own server, with its token.
/// struct AppModels: DownloadStrategy {
///     let name = "myapp-models"
///     let server: URL
///     let token: String
///
///     func canHandle(_ url: URL) -> Bool { url.scheme == "myapp-models" }
///
///     func fetch(_ request: DownloadRequest) async throws -> Int64 {
///         let mapped = server.appendingPathComponent(request.url.path())
///         return try await HTTPDownloadStrategy(headers: ["Authorization": "Bearer \(token)"])
///             .fetch(request.redirected(to: mapped))
///     }
/// }
/// try sdk.registerDownloadStrategy(AppModels(server: server, token: token))
/// ```
public protocol DownloadStrategy: Sendable {
    /// A short name for logs and errors.
    var name: String { get }

    /// Whether this strategy fetches `url`: decides by its scheme, usually. Strategies
    /// registered later are asked first; HTTP(S) is asked last.
    func canHandle(_ url: URL) -> Bool

    /// Whether ``fetch(_:)`` continues a destination that already holds the first bytes of
    /// the file. When false, the manager empties the destination before every fetch and
    /// keeps nothing after a failure.
    var supportsResume: Bool { get }

    /// The file's size in bytes, when it can be known without fetching it (for the
    /// disk-space check and progress); `nil` when not.
    func size(of url: URL, configuration: DownloadConfiguration) async throws -> Int64?

    /// Writes the file at ``DownloadRequest/url`` into ``DownloadRequest/destination``,
    /// reporting progress, stopping when cancelled, and returns the file's size.
    ///
    /// Throw an ``SDKException`` (`downloadFailed`, `downloadCancelled`, …) to say why it
    /// failed; any other error becomes `downloadFailed` naming the strategy.
    func fetch(_ request: DownloadRequest) async throws -> Int64
}

extension DownloadStrategy {
    /// Strategies start over unless they say they resume.
    public var supportsResume: Bool { false }

    /// Sizes are unknown until fetched unless a strategy says otherwise.
    public func size(of url: URL, configuration: DownloadConfiguration) async throws -> Int64? { nil }
}

/// One file for a ``DownloadStrategy`` to fetch.
public struct DownloadRequest: Sendable {
    /// The file's URL as registered.
    public var url: URL
    /// The partial file to write. It may hold the first bytes from an earlier attempt (only
    /// for a strategy that ``DownloadStrategy/supportsResume``): append to continue, or
    /// truncate to start over.
    public var destination: URL
    /// The size registered for the file, when one was.
    public var expectedSize: Int64?
    /// What the strategy saved with ``saveResumeToken`` for this file last time (HTTP: the
    /// ETag, so a resumed transfer never splices two versions of a file).
    public var resumeToken: String?
    /// Timeouts and retries.
    public var configuration: DownloadConfiguration
    /// Whether the download was cancelled: check it between chunks.
    public var isCancelled: @Sendable () -> Bool
    /// Reports the bytes the destination holds now, and the retry number (0 for the first try).
    public var progress: @Sendable (_ bytes: Int64, _ retry: Int) -> Void
    /// Keeps a token with the partial file for the next attempt to read in ``resumeToken``.
    public var saveResumeToken: @Sendable (String) -> Void

    /// Creates a request (the download manager makes these; tests of a strategy too).
    public init(
        url: URL,
        destination: URL,
        expectedSize: Int64? = nil,
        resumeToken: String? = nil,
        configuration: DownloadConfiguration = DownloadConfiguration(),
        isCancelled: @escaping @Sendable () -> Bool = { false },
        progress: @escaping @Sendable (Int64, Int) -> Void = { _, _ in },
        saveResumeToken: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.url = url
        self.destination = destination
        self.expectedSize = expectedSize
        self.resumeToken = resumeToken
        self.configuration = configuration
        self.isCancelled = isCancelled
        self.progress = progress
        self.saveResumeToken = saveResumeToken
    }

    /// The same request for another URL: for a strategy that maps its scheme onto another
    /// strategy's (an app scheme onto HTTPS).
    public func redirected(to url: URL) -> DownloadRequest {
        var request = self
        request.url = url
        return request
    }
}
