#pragma once
// espeak-ng from Debian (libespeak-ng-dev): the system voice and the phonemizer of Piper voices.
#include <espeak-ng/speak_lib.h>
#include "../CNativeTable/native_table.h"

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_ESPEAK_FUNCTIONS(X) \
    X(espeak_Info) X(espeak_Initialize) X(espeak_ListVoices) X(espeak_SetParameter) \
    X(espeak_SetSynthCallback) X(espeak_SetVoiceByName) X(espeak_Synchronize) X(espeak_Synth) \
    X(espeak_TextToPhonemes)

RAC_NATIVE_TABLE(rac_espeak_functions, rac_espeak_functions_load, RAC_ESPEAK_FUNCTIONS)
