internal import CESpeak
@_spi(Backend) import RunAnywhere

/// espeak-ng, opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum ESpeakLibrary {
    #if os(Linux)
    private static let candidates = ["libespeak-ng.so.1", "libespeak-ng.so"]
    #else
    private static let candidates = ["libespeak-ng.1.dylib", "libespeak-ng.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        empty: rac_espeak_functions(),
        fill: { rac_espeak_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_espeak_functions> {
        try shared.get()
    }
}

/// espeak-ng's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``ESpeakLibrary/load()``.
var espeak: NativeFunctions<rac_espeak_functions> { .opened(ESpeakLibrary.shared, engine: "espeak-ng") }
