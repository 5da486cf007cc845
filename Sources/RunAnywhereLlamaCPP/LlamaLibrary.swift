internal import CLlama
@_spi(Backend) import RunAnywhere

/// libllama and libmtmd, opened on the first model load rather than linked, so that a program
/// built with this backend maps no engine until it runs one.
///
/// libmtmd is opened by the path the bootstrap records (or `RUNANYWHERE_LLAMA_LIBRARY`, a
/// libmtmd of the user's build), and brings libllama and ggml as its dependencies. They stay
/// local to it (`RTLD_LOCAL`): their ggml symbols cannot meet whisper.cpp's.
enum LlamaLibrary {
    #if os(Linux)
    private static let candidates = [RUNANYWHERE_MTMD_LIBRARY, "libmtmd.so"]
    #else
    private static let candidates = [RUNANYWHERE_MTMD_LIBRARY, "libmtmd.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        variable: "RUNANYWHERE_LLAMA_LIBRARY",
        empty: rac_llama_functions(),
        fill: { rac_llama_functions_load($0, $1) }
    )

    /// The functions, opening the libraries on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_llama_functions> {
        try shared.get()
    }
}

/// llama.cpp's functions, for code that runs only once a service exists: every service is made
/// by a load that called ``LlamaCPP/ensureBackend()``, which opened them.
var llama: NativeFunctions<rac_llama_functions> { .opened(LlamaLibrary.shared, engine: "llama.cpp") }

/// llama.cpp's chat layer (its Jinja engine and the tool-call and reasoning formats of
/// llama-server), through the C shim the bootstrap compiles against libllama-common, opened
/// when a ``ChatTemplate`` is first made. It shares libllama with libmtmd: the loader finds the
/// library already open by its soname.
enum LlamaChatLibrary {
    #if os(Linux)
    private static let candidates = [RUNANYWHERE_LLAMA_CHAT_LIBRARY, "librunanywhere-llama-chat.so"]
    #else
    private static let candidates = [RUNANYWHERE_LLAMA_CHAT_LIBRARY, "librunanywhere-llama-chat.dylib"]
    #endif

    /// The functions, or why they could not be opened.
    static let shared = NativeFunctions.opening(
        candidates,
        variable: "RUNANYWHERE_LLAMA_CHAT_LIBRARY",
        empty: rac_llama_chat_functions(),
        fill: { rac_llama_chat_functions_load($0, $1) }
    )

    /// The functions, opening the library on first call.
    static func load() throws(SDKException) -> NativeFunctions<rac_llama_chat_functions> {
        try shared.get()
    }
}
