#pragma once
// sherpa-onnx's C API as installed by scripts/bootstrap (see runanywhere-sherpa.pc).
#include <sherpa-onnx/c-api/c-api.h>
#include <runanywhere-sherpa-path.h>
#include "../CNativeTable/native_table.h"

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_SHERPA_FUNCTIONS(X) \
    X(SherpaOnnxCreateOfflineTts) X(SherpaOnnxCreateVoiceActivityDetector) X(SherpaOnnxDestroyOfflineTts) X(SherpaOnnxDestroyOfflineTtsGeneratedAudio) \
    X(SherpaOnnxDestroyVoiceActivityDetector) X(SherpaOnnxGetVersionStr) X(SherpaOnnxOfflineTtsGenerateWithConfig) X(SherpaOnnxOfflineTtsSampleRate) \
    X(SherpaOnnxVoiceActivityDetectorAcceptWaveform) X(SherpaOnnxVoiceActivityDetectorDetected) X(SherpaOnnxVoiceActivityDetectorEmpty) X(SherpaOnnxVoiceActivityDetectorPop) \
    X(SherpaOnnxVoiceActivityDetectorReset)

RAC_NATIVE_TABLE(rac_sherpa_functions, rac_sherpa_functions_load, RAC_SHERPA_FUNCTIONS)
