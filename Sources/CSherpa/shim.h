#pragma once
// sherpa-onnx's C API as installed by scripts/bootstrap (see runanywhere-sherpa.pc).
#include <sherpa-onnx/c-api/c-api.h>
#include <runanywhere-sherpa-path.h>
#include <dlfcn.h>
#include <stddef.h>

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_SHERPA_FUNCTIONS(X) \
    X(SherpaOnnxCreateOfflineTts) X(SherpaOnnxCreateVoiceActivityDetector) X(SherpaOnnxDestroyOfflineTts) X(SherpaOnnxDestroyOfflineTtsGeneratedAudio) \
    X(SherpaOnnxDestroyVoiceActivityDetector) X(SherpaOnnxGetVersionStr) X(SherpaOnnxOfflineTtsGenerateWithConfig) X(SherpaOnnxOfflineTtsSampleRate) \
    X(SherpaOnnxVoiceActivityDetectorAcceptWaveform) X(SherpaOnnxVoiceActivityDetectorDetected) X(SherpaOnnxVoiceActivityDetectorEmpty) X(SherpaOnnxVoiceActivityDetectorPop) \
    X(SherpaOnnxVoiceActivityDetectorReset)

#define RAC_SHERPA_FIELD(name) __typeof__(&name) name;
typedef struct rac_sherpa_functions {
    RAC_SHERPA_FUNCTIONS(RAC_SHERPA_FIELD)
} rac_sherpa_functions;
#undef RAC_SHERPA_FIELD

// Fills `functions` from the dlopen handle `library`; the name of the first function missing,
// or NULL when all were found.
static inline const char *rac_sherpa_functions_load(rac_sherpa_functions *functions, void *library) {
#define RAC_SHERPA_LOAD(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return #name;
    RAC_SHERPA_FUNCTIONS(RAC_SHERPA_LOAD)
#undef RAC_SHERPA_LOAD
    return NULL;
}
