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

/// How model downloads behave. Set with `RunAnywhere.setDownloadConfiguration(_:)`.
///
/// ```swift
/// var config = DownloadConfiguration()
/// config.storageLimitBytes = 4 << 30   // models may use at most 4 GiB
/// RunAnywhere.setDownloadConfiguration(config)
/// ```
public struct DownloadConfiguration: Sendable, Equatable {
    /// Retries after a connection error or a 5xx/408/429 answer; each resumes where the
    /// last attempt stopped.
    public var maxRetries: Int
    /// Wait before the first retry, in seconds; it doubles for each further retry.
    public var initialRetryDelay: Double
    /// The longest wait between retries, in seconds.
    public var maxRetryDelay: Double
    /// Seconds to wait for a connection.
    public var connectTimeout: Double
    /// A transfer that receives nothing for this many seconds is treated as dropped.
    public var stallTimeout: Double
    /// The most bytes the SDK's models may occupy in all; `nil` means only the disk limits them.
    public var storageLimitBytes: Int64?
    /// Free space to leave on the device after a download.
    public var reservedFreeBytes: Int64
    /// A PEM file of the certificate authorities that `https` downloads trust instead of the
    /// system's: a private mirror's own authority, or a company proxy's. `nil` trusts the system's.
    public var certificateAuthorities: URL?
    /// The Hugging Face hub that `hf.co/…` references resolve against: `HF_ENDPOINT` when set
    /// (a mirror), else `https://huggingface.co`.
    public var huggingFaceEndpoint: URL
    /// The token for the hub's gated and private repositories: `HF_TOKEN` when set. It is sent
    /// only to ``huggingFaceEndpoint``'s own origin, never to the hosts it redirects to.
    public var huggingFaceToken: String?

    /// The defaults: 4 retries from 0.5 s up to 8 s, 15 s to connect, 30 s stall limit,
    /// no storage limit, 64 MiB kept free.
    public init(
        maxRetries: Int = 4,
        initialRetryDelay: Double = 0.5,
        maxRetryDelay: Double = 8,
        connectTimeout: Double = 15,
        stallTimeout: Double = 30,
        storageLimitBytes: Int64? = nil,
        reservedFreeBytes: Int64 = 64 << 20,
        certificateAuthorities: URL? = nil,
        huggingFaceEndpoint: URL? = nil,
        huggingFaceToken: String? = ProcessInfo.processInfo.environment["HF_TOKEN"]
    ) {
        self.maxRetries = maxRetries
        self.initialRetryDelay = initialRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.storageLimitBytes = storageLimitBytes
        self.reservedFreeBytes = reservedFreeBytes
        self.certificateAuthorities = certificateAuthorities
        self.huggingFaceEndpoint = huggingFaceEndpoint ?? Self.defaultHuggingFaceEndpoint
        self.huggingFaceToken = huggingFaceToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `HF_ENDPOINT`, else the public hub.
    static var defaultHuggingFaceEndpoint: URL {
        ProcessInfo.processInfo.environment["HF_ENDPOINT"].flatMap { URL(string: $0) }
            ?? URL(string: "https://huggingface.co")!
    }

    /// Checks that every value is usable.
    public func validate() throws(SDKException) {
        guard maxRetries >= 0, initialRetryDelay >= 0, maxRetryDelay >= initialRetryDelay,
            connectTimeout > 0, stallTimeout > 0, reservedFreeBytes >= 0, (storageLimitBytes ?? 0) >= 0
        else {
            throw SDKException(
                .invalidConfiguration,
                "Download configuration out of range: retries and delays must not be negative, timeouts must be positive"
            )
        }
        guard ["http", "https"].contains(huggingFaceEndpoint.scheme?.lowercased() ?? ""),
            huggingFaceEndpoint.host != nil
        else {
            throw SDKException(
                .invalidConfiguration,
                "The Hugging Face endpoint \(huggingFaceEndpoint.absoluteString) is not an http(s) URL"
            )
        }
        if let token = huggingFaceToken, token.contains(where: { $0 == "\r" || $0 == "\n" || !$0.isASCII }) {
            throw SDKException(.invalidConfiguration, "The Hugging Face token is not one line of ASCII")
        }
        if let authorities = certificateAuthorities, !authorities.isFileURL || access(authorities.path, R_OK) != 0 {
            throw SDKException(
                .invalidConfiguration,
                "The certificate authorities file \(authorities.path) cannot be read"
            )
        }
    }

    /// The wait before retry number `retry` (1-based).
    func delay(beforeRetry retry: Int) -> Double {
        min(maxRetryDelay, initialRetryDelay * pow(2, Double(max(0, retry - 1))))
    }
}
