internal import CCurl

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// libcurl, opened on the first transfer rather than linked.
///
/// Linked, libcurl maps some 25 libraries into every process at start (OpenSSL, GnuTLS,
/// Kerberos, LDAP, libssh2, …), with 8,000 symbol bindings and about 7 MiB of memory, for
/// commands that never download. Opened here, only a process that transfers pays for it.
struct CurlLibrary: @unchecked Sendable {
    // Immutable function pointers into a library that stays open for the life of the process.
    let globalInit: ra_curl_global_init_fn
    let easyInit: ra_curl_easy_init_fn
    let easyCleanup: ra_curl_easy_cleanup_fn
    let easyPerform: ra_curl_easy_perform_fn
    let easyStrerror: ra_curl_easy_strerror_fn
    let slistAppend: ra_curl_slist_append_fn
    let slistFreeAll: ra_curl_slist_free_all_fn
    let version: ra_curl_version_fn
    /// `curl_easy_setopt` and `curl_easy_getinfo`, variadic: called through the shim's wrappers.
    let setopt: UnsafeMutableRawPointer
    let getinfo: UnsafeMutableRawPointer

    /// The library, opened and initialized at the first call; the failure says how to install it.
    static let shared: Result<CurlLibrary, SDKException> = Result { () throws(SDKException) in try CurlLibrary() }

    /// The library, or `.backendError` naming the package to install.
    static func load() throws(SDKException) -> CurlLibrary { try shared.get() }

    private init() throws(SDKException) {
        #if canImport(Darwin)
        let names = ["/usr/lib/libcurl.4.dylib", "libcurl.4.dylib"]
        #else
        // The soname of Debian's libcurl4 (OpenSSL), then its GnuTLS build: the same ABI.
        let names = ["libcurl.so.4", "libcurl-gnutls.so.4"]
        #endif
        let library = try DynamicLibrary(
            names,
            recovery: "Downloads need libcurl: install it (apt-get install libcurl4)"
        )
        globalInit = try library.symbol("curl_global_init")
        easyInit = try library.symbol("curl_easy_init")
        easyCleanup = try library.symbol("curl_easy_cleanup")
        easyPerform = try library.symbol("curl_easy_perform")
        easyStrerror = try library.symbol("curl_easy_strerror")
        slistAppend = try library.symbol("curl_slist_append")
        slistFreeAll = try library.symbol("curl_slist_free_all")
        version = try library.symbol("curl_version")
        setopt = try library.symbol("curl_easy_setopt")
        getinfo = try library.symbol("curl_easy_getinfo")
        // Once per process, before any handle; not thread-safe, hence here in the one-time load.
        _ = globalInit(Int(CURL_GLOBAL_DEFAULT))
    }
}
