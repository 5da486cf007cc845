#pragma once
// sherpa-onnx's C API as installed by scripts/bootstrap (see runanywhere-sherpa.pc).
#include <sherpa-onnx/c-api/c-api.h>
