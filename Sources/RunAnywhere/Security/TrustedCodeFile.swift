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

/// Checks that code the SDK loads or runs by itself (a plugin library, a companion program)
/// comes from a file no other user can change, as OpenSSH checks its key files.
///
/// Whoever can write the file, or any folder on its path, can put their code in this
/// process. So the file (links resolved) must be a regular file, and it and every folder up to
/// `/` must be owned by root or by this process's user and writable by neither group nor
/// others. One exception, which OpenSSH does not make: a folder others may write is accepted
/// when it has the sticky bit (as `/tmp` has), because there nobody can rename or remove an
/// entry they do not own, and the next step of the path is then checked for its owner.
package enum TrustedCodeFile {
    /// Checks `path`; returns it with links resolved, the path to open or run.
    ///
    /// - Parameter what: what the file is, for the message (`"The plugin"`).
    /// - Throws: `.insecurePermissions` naming the file or folder other users can write or
    ///   own; `.fileSystemError` when the path does not resolve.
    @discardableResult
    package static func check(_ path: String, what: String) throws(SDKException) -> String {
        guard let resolvedPointer = realpath(path, nil) else {
            throw SDKException(
                .fileSystemError,
                "\(what) \(path) cannot be found: \(POSIXError(errno: errno).readableDescription)"
            )
        }
        let resolved = String(cString: resolvedPointer)
        free(resolvedPointer)
        let user = geteuid()
        var component = resolved
        var isFile = true
        while true {
            var info = stat()
            guard lstat(component, &info) == 0 else {
                throw SDKException(
                    .fileSystemError,
                    "\(what) \(path): cannot inspect \(component): \(POSIXError(errno: errno).readableDescription)"
                )
            }
            let kind = info.st_mode & S_IFMT
            let mode = info.st_mode & 0o7777
            if isFile, kind != S_IFREG {
                throw SDKException(.insecurePermissions, "\(what) \(resolved) is not a regular file; it was not used")
            }
            if info.st_uid != 0, info.st_uid != user {
                throw refusal(what, path: resolved, component: component, "is owned by user \(info.st_uid)")
            }
            let sticky = !isFile && kind == S_IFDIR && mode & mode_t(S_ISVTX) != 0
            if mode & 0o022 != 0, !sticky {
                throw refusal(what, path: resolved, component: component, "can be written by other users")
            }
            if component == "/" { return resolved }
            isFile = false
            // `realpath` gave an absolute path without `.`, `..`, links or repeated `/`.
            let slash = component.lastIndex(of: "/") ?? component.startIndex
            component = slash == component.startIndex ? "/" : String(component[..<slash])
        }
    }

    private static func refusal(_ what: String, path: String, component: String, _ reason: String) -> SDKException {
        let place = component == path ? "the file" : "its folder \(component)"
        return SDKException(
            .insecurePermissions,
            "\(what) \(path) was not used: \(place) \(reason), who could then run their code here",
            recovery: "Keep it, and every folder above it, owned by you or root and writable only by its owner "
                + "(chmod go-w)"
        )
    }
}
