#pragma once
// llama.cpp's public C API, as installed by scripts/bootstrap (see runanywhere-llama.pc).
#include <llama.h>
#include <ggml.h>
