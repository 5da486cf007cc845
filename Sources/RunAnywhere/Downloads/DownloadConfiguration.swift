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
        certificateAuthorities: URL? = nil
    ) {
        self.maxRetries = maxRetries
        self.initialRetryDelay = initialRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.storageLimitBytes = storageLimitBytes
        self.reservedFreeBytes = reservedFreeBytes
        self.certificateAuthorities = certificateAuthorities
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
