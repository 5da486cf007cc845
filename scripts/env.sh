# Shared locations for the bootstrap, the Makefile and CI. Source it; `print_env`
# prints the exports a shell needs to use the engines outside `make`.
#
# Engines live outside the clone, keyed by version and build flags, so that a new
# clone on the same machine reuses them and a change of flags builds a new copy.

LLAMA_CPP_PY_VERSION="0.3.36"
WHISPER_PY_VERSION="1.5.1"        # pywhispercpp wheel: libwhisper 1.8.5 + its own ggml
SHERPA_VERSION="2.0.1"            # sherpa-onnx-core: C API + onnxruntime
ONNX_PY_VERSION="1.23.2"          # edits Piper voices' metadata (scripts/prepare_piper_voice.py)
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"

RUNANYWHERE_ENGINES="${RUNANYWHERE_ENGINES:-${XDG_CACHE_HOME:-$HOME/.cache}/runanywhere/engines}"
_flags_key=$(printf '%s' "$LLAMA_CMAKE_ARGS" | cksum | cut -d' ' -f1)
LLAMA_PREFIX="$RUNANYWHERE_ENGINES/llama-cpp-$LLAMA_CPP_PY_VERSION-$_flags_key"
WHISPER_PREFIX="$RUNANYWHERE_ENGINES/whisper-cpp-$WHISPER_PY_VERSION"
SHERPA_PREFIX="$RUNANYWHERE_ENGINES/sherpa-onnx-$SHERPA_VERSION"
RUNANYWHERE_PKGCONFIG="$RUNANYWHERE_ENGINES/pkgconfig"
MODEL_PACKAGES="$RUNANYWHERE_ENGINES/model-packages"
PYTHON_TOOLS="$RUNANYWHERE_ENGINES/python-tools-onnx-$ONNX_PY_VERSION"

_repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNANYWHERE_CLI="${RUNANYWHERE_CLI:-$_repo_root/.build/release/runanywhere}"

export PKG_CONFIG_PATH="$RUNANYWHERE_PKGCONFIG${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$LLAMA_PREFIX/lib:$WHISPER_PREFIX/lib:$SHERPA_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

print_env() {
  printf 'export PKG_CONFIG_PATH=%q\n' "$PKG_CONFIG_PATH"
  printf 'export LD_LIBRARY_PATH=%q\n' "$LD_LIBRARY_PATH"
}
