#pragma once
// whisper.cpp's C API as installed by scripts/bootstrap (see runanywhere-whisper.pc). The
// library is pywhispercpp's hash-renamed copy, so its ggml never meets llama.cpp's.
#include <whisper.h>
