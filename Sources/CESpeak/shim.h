#pragma once
// espeak-ng from Debian (libespeak-ng-dev): the system voice and the phonemizer of Piper voices.
#include <espeak-ng/speak_lib.h>
#include <dlfcn.h>
#include <stddef.h>

// The functions the backend calls, opened on first use rather than linked, so that a program
// built with the backend maps no engine until it uses one (see NativeFunctions in the core).
// Each field takes its type from the declaration above (__typeof__): it cannot drift.
#define RAC_ESPEAK_FUNCTIONS(X) \
    X(espeak_Info) X(espeak_Initialize) X(espeak_ListVoices) X(espeak_SetParameter) \
    X(espeak_SetSynthCallback) X(espeak_SetVoiceByName) X(espeak_Synchronize) X(espeak_Synth) \
    X(espeak_TextToPhonemes)

#define RAC_ESPEAK_FIELD(name) __typeof__(&name) name;
typedef struct rac_espeak_functions {
    RAC_ESPEAK_FUNCTIONS(RAC_ESPEAK_FIELD)
} rac_espeak_functions;
#undef RAC_ESPEAK_FIELD

// Fills `functions` from the dlopen handle `library`; the name of the first function missing,
// or NULL when all were found.
static inline const char *rac_espeak_functions_load(rac_espeak_functions *functions, void *library) {
#define RAC_ESPEAK_LOAD(name) \
    functions->name = (__typeof__(&name))dlsym(library, #name); \
    if (functions->name == NULL) return #name;
    RAC_ESPEAK_FUNCTIONS(RAC_ESPEAK_LOAD)
#undef RAC_ESPEAK_LOAD
    return NULL;
}
