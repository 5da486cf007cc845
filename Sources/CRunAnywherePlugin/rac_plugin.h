#pragma once
// RunAnywhere's plugin ABI: what a plugin library exports, in C, so that a plugin needs neither
// the host's copy of the SDK nor its toolchain, and may be written in C, C++ or Swift (@_cdecl).
//
// A plugin is a shared library exporting one function, `rac_plugin_entry`, which returns a
// description of the plugin: its ABI version, its name, the model frameworks it serves and one
// table of functions per capability (NULL for a capability it does not offer). The host checks
// the version before it reads anything else and calls nothing of a table it does not know.
//
// Threads: the host calls a plugin from threads of its own that may block, never two calls on
// one model at once (`cancel` excepted); a plugin may finish an operation on any thread (it reports through the
// callback it is given, exactly once). Strings passed to a callback are the plugin's, valid only
// during the call; strings the host passes are valid until the call (or its callback) returns.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The ABI version this header describes; `rac_plugin.api_version` must equal it.
#define RAC_PLUGIN_API_VERSION 1u
/// The name of the function every plugin exports (`rac_plugin_entry_fn`).
#define RAC_PLUGIN_ENTRY_NAME "rac_plugin_entry"

/// An operation's outcome.
typedef int32_t rac_result_t;
#define RAC_SUCCESS 0
/// The host asked to cancel the operation.
#define RAC_ERROR_CANCELLED 1
/// The model could not be loaded (missing, unreadable, not a model of this engine).
#define RAC_ERROR_MODEL_LOAD_FAILED 2
/// The input was refused (bad options, audio the engine cannot take).
#define RAC_ERROR_INVALID_INPUT 3
/// The engine failed.
#define RAC_ERROR_ENGINE_FAILED 4

/// Reports a load: on success `model` is the plugin's handle and `message` NULL; otherwise
/// `model` is NULL and `message` says why.
typedef void (*rac_loaded_fn)(void *context, rac_result_t result, void *model, const char *message);
/// Reports an operation: on success `output` is its JSON result; otherwise the error message.
typedef void (*rac_done_fn)(void *context, rac_result_t result, const char *output);

/// Speech recognition.
typedef struct rac_stt_ops {
    /// Loads the model at `model_path` (its file, as the host's registry stores it) and reports
    /// through `done`.
    void (*load)(const char *model_path, const char *model_id, void *context, rac_loaded_fn done);
    /// Transcribes `sample_count` mono float samples at 16 kHz in [-1, 1], valid until `done`
    /// is called. `options_json` is an object with optional keys "language" (ISO code),
    /// "translate" (bool), "threads" (int) and "initial_prompt" (string). The result is
    /// `{"text": "…", "language": "en", "confidence": 0.9, "segments": [{"text": "…",
    /// "start": 0.0, "end": 1.2, "confidence": 0.9}]}` (times in seconds; "language" and the
    /// confidences may be null).
    void (*transcribe)(
        void *model, const float *samples, size_t sample_count, const char *options_json,
        void *context, rac_done_fn done);
    /// Asks the transcription running on `model` to stop early (it then reports
    /// RAC_ERROR_CANCELLED). Called from any thread, while `transcribe` runs or when none
    /// does; may be NULL.
    void (*cancel)(void *model);
    /// Frees the model; nothing runs on it then.
    void (*unload)(void *model);
} rac_stt_ops;

/// What `rac_plugin_entry` returns; the plugin owns it, for as long as the library is loaded.
typedef struct rac_plugin {
    /// RAC_PLUGIN_API_VERSION of the header the plugin was built with.
    uint32_t api_version;
    /// The plugin's unique name (letters, digits, '-', '_', '.'), e.g. "whispercpp-plugin".
    const char *name;
    /// Its engine and version, for diagnostics, e.g. "whisper.cpp 1.7.6"; may be NULL.
    const char *engine;
    /// The model frameworks it serves (as the registry names them, e.g. "whispercpp"),
    /// terminated by NULL.
    const char *const *frameworks;
    /// Higher wins when several backends can run a model; the SDK's own use 100.
    int32_t priority;
    /// Speech recognition, or NULL.
    const rac_stt_ops *stt;
    /// NULL: room for further capabilities within this version.
    const void *reserved[8];
} rac_plugin;

/// The entry point's type; a plugin returns NULL when it cannot run here (its engine missing).
typedef const rac_plugin *(*rac_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
