#pragma once
// llama.cpp's public C API, as installed by scripts/bootstrap (see runanywhere-llama.pc), and
// libmtmd, its library for image input to language models.
#include <llama.h>
#include <ggml.h>
#include <mtmd.h>
#include <mtmd-helper.h>
