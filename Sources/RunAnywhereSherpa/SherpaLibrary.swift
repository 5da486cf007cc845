internal import CSherpa
@_spi(Backend) import RunAnywhere

/// sherpa-onnx's C API (and onnxruntime, its dependency), opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum SherpaLibrary {
    #if os(Linux)
    private static let candidates = [RUNANYWHERE_SHERPA_LIBRARY, "libsherpa-onnx-c-api.so"]
    #else
    private static let candidates = ["libsherpa-onnx-c-api.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        variable: "RUNANYWHERE_SHERPA_LIBRARY",
        empty: rac_sherpa_functions(),
        fill: { rac_sherpa_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_sherpa_functions> {
        try shared.get()
    }
}

/// sherpa-onnx's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``SherpaLibrary/load()``.
var sherpa: NativeFunctions<rac_sherpa_functions> { .opened(SherpaLibrary.shared, engine: "sherpa-onnx") }
