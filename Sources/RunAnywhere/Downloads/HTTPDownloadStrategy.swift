#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The SDK's own transfer, for `http` and `https` URLs: libcurl, resumed with Range and
/// `If-Range` requests after a dropped connection, retried with exponential back-off after
/// 5xx answers and network errors (``DownloadConfiguration``).
///
/// It is always registered, and asked last. A strategy for another scheme can map its URLs
/// onto HTTPS and hand them to one of these with its own headers (see ``DownloadStrategy``).
public struct HTTPDownloadStrategy: DownloadStrategy {
    /// `https`.
    public let name = "https"
    /// Request headers sent with every request, e.g. `Authorization`.
    public let headers: [String: String]

    private let logger = SDKLogger(category: "Download")

    /// A transfer that sends `headers` with every request.
    public init(headers: [String: String] = [:]) {
        self.headers = headers
    }

    /// `http` and `https` URLs with a host.
    public func canHandle(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host != nil
    }

    /// Resumes with Range requests.
    public var supportsResume: Bool { true }

    /// The size a HEAD request reports, with the same retries as a transfer; `nil` when the
    /// server does not say (the download then goes ahead without a space check).
    public func size(of url: URL, configuration: DownloadConfiguration) async throws -> Int64? {
        try checkHeaders()
        _ = try CurlLibrary.load()  // a missing libcurl is its own error, with what to install
        var retry = 0
        while true {
            let options = self.options(configuration, for: url)
            let result = await runOnDetachedThread(name: "runanywhere-download") {
                HTTPTransfer.head(url, options: options)
            }
            switch result {
            case .success(let head) where (200..<300).contains(head.status):
                return head.contentLength
            case .success(let head)
            where HTTPTransfer.isRetryable(status: head.status) && retry < configuration.maxRetries:
                break
            case .success(let head) where head.status == 405 || head.status == 501:
                return nil  // no HEAD here; GET tells the size
            case .success(let head):
                throw Self.httpError(head.status, url: url)
            case .failure(let failure) where failure.insecureRedirect != nil:
                throw Self.insecureRedirectError(from: url, to: failure.insecureRedirect ?? "")
            case .failure(let failure)
            where HTTPTransfer.isRetryable(curlCode: failure.code) && retry < configuration.maxRetries:
                break
            case .failure(let failure):
                throw Self.transportError(failure.message, url: url, retries: retry)
            }
            retry += 1
            try await backOff(retry, configuration: configuration, url: url, isCancelled: { false })
        }
    }

    /// Streams the file into the destination, resuming what it holds and retrying.
    public func fetch(_ request: DownloadRequest) async throws -> Int64 {
        try await fetch(request, statusError: { _ in nil })
    }

    /// ``fetch(_:)``, where `statusError` may give the error for a final HTTP status (one not
    /// retried): for callers that say what a status means to them (the hub's 404 is an
    /// unknown repository); `nil` keeps the generic one.
    func fetch(_ request: DownloadRequest, statusError: (Int) -> SDKException?) async throws -> Int64 {
        try checkHeaders()
        _ = try CurlLibrary.load()
        let part = request.destination
        var etag = request.resumeToken
        var retry = 0
        while true {
            let fd = open(part.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SDKException(.fileSystemError, "Cannot open \(part.path): \(String(cString: strerror(errno)))")
            }
            var offset = Int64(lseek(fd, 0, SEEK_END))
            if let expected = request.expectedSize, offset > expected {
                _ = ftruncate(fd, 0)
                offset = 0
            }
            if let expected = request.expectedSize, offset == expected, offset > 0 {
                close(fd)
                request.progress(offset, retry)
                return offset
            }
            let options = self.options(request.configuration, for: request.url)
            let (url, ifRange, cancel, attempt, start) = (request.url, etag, request.isCancelled, retry, offset)
            let progress = request.progress
            progress(offset, retry)
            let outcome = await runOnDetachedThread(name: "runanywhere-download") {
                HTTPTransfer.get(url, into: fd, offset: start, ifRange: ifRange, options: options, cancel: cancel) {
                    progress($0, attempt)
                }
            }
            close(fd)
            // The ETag is kept even when the transfer fails, so that a later run resumes with
            // If-Range and never splices two versions of a file.
            func remember(_ newEtag: String?) {
                guard let newEtag, newEtag != etag else { return }
                etag = newEtag
                request.saveResumeToken(newEtag)
            }
            switch outcome {
            case .finished(_, let size, let newEtag):
                remember(newEtag)
                return size
            case .httpStatus(416) where offset > 0:
                // The partial file no longer matches the resource: start it over.
                try? FileManager.default.removeItem(at: part)
                etag = nil
            case .httpStatus(let status)
            where HTTPTransfer.isRetryable(status: status) && retry < request.configuration.maxRetries:
                break
            case .httpStatus(let status):
                throw statusError(status) ?? Self.httpError(status, url: request.url)
            case .transport(let code, _, let newEtag)
            where HTTPTransfer.isRetryable(curlCode: code) && retry < request.configuration.maxRetries:
                remember(newEtag)
            case .transport(_, let message, let newEtag):
                remember(newEtag)
                throw Self.transportError(message, url: request.url, retries: retry)
            case .insecureRedirect(let target):
                throw Self.insecureRedirectError(from: request.url, to: target)
            case .cancelled:
                throw SDKException(.downloadCancelled, "The download was cancelled")
            case .writeFailed(let code):
                throw SDKException(
                    code == ENOSPC || code == EDQUOT ? .insufficientStorage : .fileSystemError,
                    "Cannot write \(part.path): \(String(cString: strerror(code)))"
                )
            }
            retry += 1
            try await backOff(retry, configuration: request.configuration, url: request.url, isCancelled: cancel)
        }
    }

    private func options(_ configuration: DownloadConfiguration, for url: URL) -> HTTPTransfer.Options {
        var options = HTTPTransfer.Options(
            connectTimeout: configuration.connectTimeout,
            stallTimeout: configuration.stallTimeout
        )
        options.headers = headers
        // The hub's token goes to the hub alone; libcurl drops it on a redirect to another host.
        if let token = configuration.huggingFaceToken, options.headers["Authorization"] == nil,
            HuggingFaceHub.isHub(url, endpoint: configuration.huggingFaceEndpoint)
        {
            options.headers["Authorization"] = "Bearer \(token)"
        }
        options.certificateAuthorities = configuration.certificateAuthorities
        return options
    }

    /// Header names and values that would break the request line are refused, not sent.
    private func checkHeaders() throws(SDKException) {
        for (name, value) in headers {
            let badName = name.isEmpty || name.contains { !$0.isASCII || $0.isWhitespace || $0 == ":" }
            guard !badName, !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw SDKException(.invalidInput, "'\(name)' is not a usable HTTP header (name or value)")
            }
        }
    }

    /// Waits before retry number `retry`; a cancel ends the wait at once.
    private func backOff(
        _ retry: Int,
        configuration: DownloadConfiguration,
        url: URL,
        isCancelled: @Sendable () -> Bool
    ) async throws(SDKException) {
        let delay = configuration.delay(beforeRetry: retry)
        logger.info(
            "Retry \(retry)/\(configuration.maxRetries) of \(url.lastPathComponent) in \(String(printf: "%.2f", delay)) s"
        )
        do {
            try await Task.sleep(for: .seconds(delay))
        } catch {
            throw SDKException(.downloadCancelled, "The download was cancelled")
        }
        if isCancelled() { throw SDKException(.downloadCancelled, "The download was cancelled") }
    }

    private static func httpError(_ status: Int, url: URL) -> SDKException {
        let reason = [401: " (unauthorized)", 403: " (forbidden)", 404: " (not found)", 410: " (gone)"][status] ?? ""
        return SDKException(
            .downloadFailed,
            "\(url.absoluteString) answered HTTP \(status)\(reason)",
            recovery: status == 404 || status == 410 ? "Check the model's URL" : nil
        )
    }

    private static func insecureRedirectError(from url: URL, to target: String) -> SDKException {
        SDKException(
            .insecureRedirect,
            "\(url.absoluteString) redirected to \(target): an https download is never continued over plain http",
            recovery: "Use a URL whose redirects stay on https, or ask the server's owner to fix the redirect"
        )
    }

    private static func transportError(_ message: String, url: URL, retries: Int) -> SDKException {
        SDKException(
            .downloadFailed,
            "Downloading \(url.absoluteString) failed\(retries > 0 ? " after \(retries) retries" : ""): \(message)",
            recovery: "Check the connection; downloading again resumes where this stopped"
        )
    }
}
