internal import COpenBLAS
@_spi(Backend) import RunAnywhere

/// OpenBLAS, opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum OpenBLASLibrary {
    #if os(Linux)
    private static let candidates = ["libopenblas.so.0", "libopenblas.so"]
    #else
    private static let candidates = ["libopenblas.0.dylib", "libopenblas.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        empty: rac_openblas_functions(),
        fill: { rac_openblas_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_openblas_functions> {
        try shared.get()
    }
}

/// OpenBLAS's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``OpenBLASLibrary/load()``.
var openblas: NativeFunctions<rac_openblas_functions> { .opened(OpenBLASLibrary.shared, engine: "OpenBLAS") }
