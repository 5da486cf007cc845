internal import CCurl
import Synchronization

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

/// One HTTP request on libcurl, with its body streamed straight to a file descriptor.
///
/// libcurl is the engine the `curl` tool itself runs on, so a download costs what `curl`
/// costs: the body goes from the socket to `pwrite` in 1 MiB pieces and memory stays flat
/// whatever the file size. Foundation's `URLSession` on Linux copies every piece through
/// queues with no back-pressure: a quarter of the speed, and a 300 MB file grew the
/// process by 150 MB when measured.
///
/// Calls block; run them off the cooperative pool (``runOnDetachedThread(name:_:)``).
enum HTTPTransfer {
    struct Options: Sendable {
        var connectTimeout: Double
        var stallTimeout: Double
        var userAgent = "RunAnywhere-Swift/\(RunAnywhere.version)"
        /// Extra request headers (checked by ``HTTPDownloadStrategy``: no line breaks).
        var headers: [String: String] = [:]
        /// A PEM file of the certificate authorities to trust instead of the system's.
        var certificateAuthorities: URL?
    }

    /// What a HEAD request told.
    struct Head: Sendable {
        var status: Int
        var contentLength: Int64?
        var etag: String?
    }

    /// How a GET ended.
    enum Outcome: Sendable, Equatable {
        /// The whole body is in the file, which now holds `fileSize` bytes.
        case finished(status: Int, fileSize: Int64, etag: String?)
        /// The server answered with a status other than 200/206; nothing was written.
        case httpStatus(Int)
        /// The connection failed or dropped; the file keeps what arrived. `etag` is the
        /// resource's, if the server sent one, for resuming with `If-Range`.
        case transport(code: Int, message: String, etag: String?)
        /// An `https` URL redirected to this `http` one; nothing was fetched from it.
        case insecureRedirect(String)
        /// The cancel check said so.
        case cancelled
        /// Writing to disk failed with this `errno`.
        case writeFailed(errno: Int32)
    }

    /// libcurl's version line, e.g. `libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 …`, or why it
    /// cannot be opened.
    static var libraryVersion: String {
        switch CurlLibrary.shared {
        case .success(let curl): curl.version().map { String(cString: $0) } ?? "unknown"
        case .failure(let error): "not available: \(error.message)"
        }
    }

    /// A HEAD request; redirects are followed.
    static func head(_ url: URL, options: Options) -> Result<Head, TransportFailure> {
        let context = Context(fd: -1, offset: 0, cancel: nil, progress: nil)
        let result = perform(url, method: .head, range: nil, ifRange: nil, options: options, context: context)
        if let failure = result { return .failure(failure) }
        return .success(Head(status: context.status, contentLength: context.contentLength, etag: context.etag))
    }

    /// A connection-level failure: a libcurl code and its message.
    struct TransportFailure: Error, Sendable, Equatable {
        var code: Int
        var message: String
        /// Set when the failure is a refused `https` → `http` redirect: the `http` URL.
        var insecureRedirect: String?
    }

    /// GETs `url` into `fd`, resuming at `offset` with a Range request when it is not 0.
    ///
    /// A server that ignores the range (200 instead of 206), or whose resource changed
    /// since `ifRange` (an ETag), sends the whole body: the file is truncated and written
    /// from the start. `progress` gets the file's size about ten times a second.
    static func get(
        _ url: URL,
        into fd: Int32,
        offset: Int64,
        ifRange: String?,
        options: Options,
        cancel: @escaping @Sendable () -> Bool,
        progress: @escaping @Sendable (Int64) -> Void
    ) -> Outcome {
        let context = Context(fd: fd, offset: offset, cancel: cancel, progress: progress)
        let failure = perform(
            url,
            method: .get,
            range: offset > 0 ? "\(offset)-" : nil,
            ifRange: ifRange,
            options: options,
            context: context
        )
        if context.cancelled { return .cancelled }
        if let refused = context.refusedRedirect { return .insecureRedirect(refused) }
        if let writeErrno = context.writeErrno { return .writeFailed(errno: writeErrno) }
        if context.discarding { return .httpStatus(context.status) }
        if context.rangeMismatch {
            return .transport(
                code: Int(CURLE_RANGE_ERROR.rawValue),
                message: "The server sent another byte range than asked",
                etag: nil
            )
        }
        if let failure {
            return .transport(code: failure.code, message: failure.message, etag: context.etag)
        }
        guard context.status == 200 || context.status == 206 else { return .httpStatus(context.status) }
        if !context.decided { context.decide() }  // an empty body never reached the write callback
        return .finished(status: context.status, fileSize: context.position, etag: context.etag)
    }

    // MARK: libcurl plumbing

    /// State shared with the C callbacks, which all run on the calling thread.
    private final class Context {
        let fd: Int32
        let offset: Int64
        let cancel: (@Sendable () -> Bool)?
        let progress: (@Sendable (Int64) -> Void)?
        var handle: UnsafeMutableRawPointer?
        var status = 0
        var contentLength: Int64?
        var contentRangeStart: Int64?
        var etag: String?
        var decided = false
        var discarding = false
        var position: Int64 = 0
        var writeErrno: Int32?
        var cancelled = false
        var rangeMismatch = false
        var lastReport = ContinuousClock.now
        /// The library, for `decide()`; set by `perform`.
        var curl: CurlLibrary?
        /// The URL the current response answers: the request's, then each redirect's target.
        var currentURL: URL?
        /// Whether any URL of the chain so far was `https`: from then on, `http` is refused.
        var secure = false
        /// Whether the response being read is a redirect (3xx).
        var redirecting = false
        /// The `http` URL an `https` one redirected to, when that ended the transfer.
        var refusedRedirect: String?

        init(fd: Int32, offset: Int64, cancel: (@Sendable () -> Bool)?, progress: (@Sendable (Int64) -> Void)?) {
            self.fd = fd
            self.offset = offset
            self.cancel = cancel
            self.progress = progress
            self.position = offset
        }

        /// At the first body byte: append to the partial file, start it over, or swallow an error page.
        func decide() {
            decided = true
            // During the transfer the handle tells; after it (an empty body), the status that
            // `perform` read before freeing the handle.
            if let handle, let curl { status = ra_curl_response_code(curl.getinfo, handle) }
            switch status {
            case 200:
                // The whole body, though we may have asked for a range: the partial file is stale.
                if offset > 0, ftruncate(fd, 0) != 0 { writeErrno = errno }
                position = 0
            case 206 where contentRangeStart == offset:
                position = offset
            case 206:
                // Not the range asked for: start the file over on the next attempt.
                if ftruncate(fd, 0) != 0 { writeErrno = errno }
                position = 0
                rangeMismatch = true
            default:
                discarding = true
            }
        }
    }

    private enum Method {
        case head
        case get
    }

    private static func perform(
        _ url: URL,
        method: Method,
        range: String?,
        ifRange: String?,
        options: Options,
        context: Context
    ) -> TransportFailure? {
        let curl: CurlLibrary
        switch CurlLibrary.shared {
        case .success(let library): curl = library
        case .failure(let error): return TransportFailure(code: -1, message: error.message)
        }
        let setopt = curl.setopt
        guard let handle = curl.easyInit() else {
            return TransportFailure(code: -1, message: "libcurl could not create a handle")
        }
        defer {
            context.handle = nil
            curl.easyCleanup(handle)
        }
        context.handle = handle
        context.curl = curl
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl.slistFreeAll(headers) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        let unmanaged = Unmanaged.passUnretained(context).toOpaque()
        context.currentURL = url
        context.secure = url.scheme?.lowercased() == "https"
        _ = ra_curl_setopt_string(setopt, handle, CURLOPT_URL, url.absoluteString)
        _ = ra_curl_setopt_string(setopt, handle, CURLOPT_PROTOCOLS_STR, "http,https")
        // An https transfer never follows a redirect to http: the header callback stops it
        // first, naming the target; libcurl's own rule is the second lock.
        _ = ra_curl_setopt_string(
            setopt,
            handle,
            CURLOPT_REDIR_PROTOCOLS_STR,
            context.secure ? "https" : "http,https"
        )
        if let authorities = options.certificateAuthorities {
            _ = ra_curl_setopt_string(setopt, handle, CURLOPT_CAINFO, authorities.path)
        }
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_FOLLOWLOCATION, 1)
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_MAXREDIRS, 10)
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_NOSIGNAL, 1)
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout))
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = ra_curl_setopt_long(
            setopt,
            handle,
            CURLOPT_LOW_SPEED_TIME,
            max(1, (milliseconds(options.stallTimeout) + 999) / 1000)
        )
        _ = ra_curl_setopt_long(setopt, handle, CURLOPT_BUFFERSIZE, 1 << 20)
        _ = ra_curl_setopt_string(setopt, handle, CURLOPT_USERAGENT, options.userAgent)
        _ = ra_curl_setopt_pointer(setopt, handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ra_curl_setopt_data_callback(setopt, handle, CURLOPT_HEADERFUNCTION, headerCallback)
        _ = ra_curl_setopt_pointer(setopt, handle, CURLOPT_HEADERDATA, unmanaged)
        switch method {
        case .head:
            _ = ra_curl_setopt_long(setopt, handle, CURLOPT_NOBODY, 1)
        case .get:
            _ = ra_curl_setopt_data_callback(setopt, handle, CURLOPT_WRITEFUNCTION, writeCallback)
            _ = ra_curl_setopt_pointer(setopt, handle, CURLOPT_WRITEDATA, unmanaged)
            _ = ra_curl_setopt_progress_callback(setopt, handle, progressCallback)
            _ = ra_curl_setopt_pointer(setopt, handle, CURLOPT_XFERINFODATA, unmanaged)
            _ = ra_curl_setopt_long(setopt, handle, CURLOPT_NOPROGRESS, 0)
        }
        if let range {
            _ = ra_curl_setopt_string(setopt, handle, CURLOPT_RANGE, range)
            if let ifRange { headers = curl.slistAppend(headers, "If-Range: \(ifRange)") }
        }
        for (name, value) in options.headers.sorted(by: { $0.key < $1.key }) {
            headers = curl.slistAppend(headers, "\(name): \(value)")
        }
        if headers != nil { _ = ra_curl_setopt_slist(setopt, handle, CURLOPT_HTTPHEADER, headers) }

        let code = curl.easyPerform(handle)
        context.status = ra_curl_response_code(curl.getinfo, handle)
        if let refused = context.refusedRedirect {
            return TransportFailure(
                code: Int(code.rawValue),
                message: "\(context.currentURL?.absoluteString ?? url.absoluteString) redirected to \(refused)",
                insecureRedirect: refused
            )
        }
        if case .head = method {
            let length = ra_curl_content_length(curl.getinfo, handle)
            context.contentLength = length >= 0 ? Int64(length) : nil
        }
        context.progress?(context.position)
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let message =
                detail.isEmpty
                ? curl.easyStrerror(code).map { String(cString: $0) } ?? "error \(code.rawValue)" : detail
            return TransportFailure(code: Int(code.rawValue), message: message)
        }
        return nil
    }

    private static let headerCallback: ra_curl_data_callback = { data, size, count, user in
        let total = size * count
        guard let data, let user else { return total }
        let context = Unmanaged<Context>.fromOpaque(user).takeUnretainedValue()
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: total), as: UTF8.self)
            .trimmed()
        if line.hasPrefix("HTTP/") {
            // A new response (after a redirect): forget the previous one's headers.
            context.etag = nil
            context.contentRangeStart = nil
            let status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            context.redirecting = (300..<400).contains(status)
            return total
        }
        guard let colon = line.firstIndex(of: ":") else { return total }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmedSpaces()
        switch name {
        case "location" where context.redirecting:
            // Resolved as libcurl resolves it: relative to the URL this response answers.
            let target = URL(string: value, relativeTo: context.currentURL)?.absoluteURL
            let scheme = target?.scheme?.lowercased()
            if context.secure, scheme != "https" {
                context.refusedRedirect = target?.absoluteString ?? value
                return 0  // ends the transfer before libcurl follows the redirect
            }
            context.currentURL = target
            context.secure = context.secure || scheme == "https"
        case "etag":
            context.etag = value
        case "content-range":
            // bytes START-END/TOTAL
            if let dash = value.firstIndex(of: "-") {
                let start = value[..<dash].split(separator: " ").last.map(String.init) ?? ""
                context.contentRangeStart = Int64(start)
            }
        default:
            break
        }
        return total
    }

    private static let writeCallback: ra_curl_data_callback = { data, size, count, user in
        let total = size * count
        guard let data, let user else { return 0 }
        let context = Unmanaged<Context>.fromOpaque(user).takeUnretainedValue()
        guard context.fd >= 0 else { return total }  // a POST's answer: not kept
        if !context.decided { context.decide() }
        if context.writeErrno != nil || context.rangeMismatch { return 0 }
        if context.discarding { return total }
        if context.cancel?() == true {
            context.cancelled = true
            return 0
        }
        var written = 0
        while written < total {
            let n = pwrite(context.fd, data + written, total - written, off_t(context.position))
            if n < 0 {
                if errno == EINTR { continue }
                context.writeErrno = errno
                return 0
            }
            written += n
            context.position += Int64(n)
        }
        let now = ContinuousClock.now
        if context.lastReport.duration(to: now) >= .milliseconds(100) {
            context.lastReport = now
            context.progress?(context.position)
        }
        return total
    }

    private static let progressCallback: ra_curl_progress_callback = { user, _, _, _, _ in
        guard let user else { return 0 }
        let context = Unmanaged<Context>.fromOpaque(user).takeUnretainedValue()
        if context.cancel?() == true {
            context.cancelled = true
            return 1
        }
        return 0
    }

    /// Seconds as whole milliseconds for libcurl, at most a day: an infinite timeout, which the
    /// configuration allows, would trap converting to `Int`.
    private static func milliseconds(_ seconds: Double) -> Int {
        Int((min(seconds, 86_400) * 1000).rounded(.up))
    }

    /// Whether a failure is worth another attempt: the network, not the request, is at fault.
    static func isRetryable(curlCode code: Int) -> Bool {
        let retryable: [CURLcode] = [
            CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT,
            CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING,
            CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_SSL_CONNECT_ERROR,
            CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_WEIRD_SERVER_REPLY, CURLE_RANGE_ERROR,
        ]
        return retryable.contains { Int($0.rawValue) == code }
    }

    /// Whether an HTTP status is worth another attempt.
    static func isRetryable(status: Int) -> Bool {
        status >= 500 || status == 408 || status == 429
    }
}
