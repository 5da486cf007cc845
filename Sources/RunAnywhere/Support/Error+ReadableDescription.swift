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

extension Error {
    /// The error as a phrase for a message: "No such file or directory" for a file that is not
    /// there, an `SDKException`'s own message.
    ///
    /// `localizedDescription` says this on Apple platforms; on Linux it is full Foundation's,
    /// which a process that needs nothing else of it would map only for this.
    package var readableDescription: String {
        switch self {
        case let error as SDKException:
            return error.message
        case let error as POSIXError:
            return String(cString: strerror(error.code.rawValue))
        case let error as CocoaError:
            if let posix = error.underlying as? POSIXError {
                return String(cString: strerror(posix.code.rawValue))
            }
            return "file error \(error.code.rawValue)"
        default:
            return "\(self)"
        }
    }
}
