internal import CPocketSphinx
@_spi(Backend) import RunAnywhere

/// pocketsphinx (and sphinxbase, its dependency), opened on first use rather than linked, so that a program built with this
/// backend maps no engine until it uses one.
enum PocketSphinxLibrary {
    #if os(Linux)
    private static let candidates = ["libpocketsphinx.so.3", "libpocketsphinx.so"]
    #else
    private static let candidates = ["libpocketsphinx.3.dylib", "libpocketsphinx.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        empty: rac_pocketsphinx_functions(),
        fill: { rac_pocketsphinx_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_pocketsphinx_functions> {
        try shared.get()
    }
}

/// pocketsphinx's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``PocketSphinxLibrary/load()``.
var pocketsphinx: NativeFunctions<rac_pocketsphinx_functions> {
    .opened(PocketSphinxLibrary.shared, engine: "pocketsphinx")
}
