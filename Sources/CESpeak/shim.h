#pragma once
// espeak-ng from Debian (libespeak-ng-dev): the system voice and the phonemizer of Piper voices.
#include <espeak-ng/speak_lib.h>
