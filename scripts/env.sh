# Shared locations for the bootstrap, the Makefile and CI. Source it; `print_env`
# prints the exports a shell needs to use the engines outside `make`.
#
# Engines live outside the clone, keyed by version and build flags, so that a new
# clone on the same machine reuses them and a change of flags builds a new copy.

LLAMA_CPP_PY_VERSION="0.3.36"
WHISPER_PY_VERSION="1.5.1"        # pywhispercpp wheel: libwhisper 1.8.5 + its own ggml
SHERPA_VERSION="2.0.1"            # sherpa-onnx-core: C API + onnxruntime
ONNX_PY_VERSION="1.23.2"          # edits Piper voices' metadata (scripts/prepare_piper_voice.py)
# The Python tools environment (converters, and the programs tests run). Its folder is keyed
# by this list, so adding or re-pinning a package gives a new folder that machines with the
# old one then install; the old folder is left unused.
PYTHON_TOOLS_PACKAGES=(
  "numpy>=1.24"
  "onnx==$ONNX_PY_VERSION"
  "mcp==1.30.0"                   # scripts/mcp_test_server.py (1.x: FastMCP; 2.x renamed it)
  "jsonschema==4.26.0"            # scripts/validate_json_instances.py, and what its
  "rfc3339-validator==0.1.4"      #   FormatChecker needs for date-time, time,
  "rfc3986-validator==0.1.1"      #   uri, uri-reference,
  "fqdn==1.6.0"                   #   hostname,
  "jsonpointer==3.12"             #   json-pointer,
  "uri-template==1.3.0"           #   uri-template,
  "isoduration==20.11.0"          #   duration,
  "webcolors==25.10.0"            #   color: the format-nongpl extra less rfc3987-syntax
                                  #   (iri), which costs 2 s of start-up
  "gguf==0.19.0"                  # scripts/convert_minilm_gguf.py. Same version number as the gguf-py
                                  #   in the llama-cpp-python 0.3.36 sdist, but an older cut (no
                                  #   normalizer/cls key constants: the converter spells those keys)
  "tokenizers==0.22.1"            # scripts/minilm_reference.py: HF's Rust WordPiece (abi3 wheel;
                                  #   pulls huggingface-hub, never used offline)
  "openai==3.54.0"                # scripts/openai_conformance.py: the official client against
                                  #   `runanywhere serve` (brings httpx, used for raw calls)
  "schemathesis==4.32.5"          # scripts/fuzz_server.sh, run as `python3 -m schemathesis.cli`
                                  #   (a --target install has no console script on PATH)
  "jinja2==3.1.6"                 # scripts/render_chat_template.py: chat templates rendered as
                                  #   transformers renders them (the ChatTemplate tests' reference)
  "pillow==13.0.0"                # scripts/image_variants.py: re-encodes the real photos
                                  #   (progressive JPEG, grey, palette, 16-bit, interlaced PNG)
  "ollama==0.6.3"                 # scripts/ollama_conformance.py: the official Ollama client
                                  #   against `runanywhere serve`'s /api (pydantic comes with mcp)
)
# llama-cpp-python's OpenAI-compatible server (scripts/llama_cpp_server.sh), a reference
# server for tests: the pure-Python llama_cpp package of the same sdist as our llama.cpp,
# loading our libllama, plus these server dependencies. Its folder is keyed by this list
# and by LLAMA_PREFIX, as PYTHON_TOOLS is.
LLAMA_SERVER_PACKAGES=(
  "fastapi==0.165.0"
  "uvicorn==0.54.0"
  "sse-starlette==3.7.0"
  "pydantic-settings==2.16.3"
  "starlette-context==0.5.1"      # the sdist's [server] extra says <0.4; 0.5.1 works with starlette 1.x
  "numpy==2.4.6"
  "diskcache==5.6.3"
  "jinja2==3.1.6"
  "typing-extensions==4.16.0"
)
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
# A GPU build on a machine that has one, e.g. RUNANYWHERE_LLAMA_CMAKE_EXTRA="-DGGML_CUDA=ON" (README,
# "Accelerators"). The flags key the install folder, so it sits beside the CPU build.
if [ -n "${RUNANYWHERE_LLAMA_CMAKE_EXTRA:-}" ]; then
  LLAMA_CMAKE_ARGS="$LLAMA_CMAKE_ARGS $RUNANYWHERE_LLAMA_CMAKE_EXTRA"
fi

RUNANYWHERE_ENGINES="${RUNANYWHERE_ENGINES:-${XDG_CACHE_HOME:-$HOME/.cache}/runanywhere/engines}"
# The key holds the flags and the folder's layout ("chat": it also keeps llama.cpp's chat layer,
# libllama-common with its headers, and the sdist's model templates).
_flags_key=$(printf '%s|chat' "$LLAMA_CMAKE_ARGS" | cksum | cut -d' ' -f1)
LLAMA_PREFIX="$RUNANYWHERE_ENGINES/llama-cpp-$LLAMA_CPP_PY_VERSION-$_flags_key"
WHISPER_PREFIX="$RUNANYWHERE_ENGINES/whisper-cpp-$WHISPER_PY_VERSION"
SHERPA_PREFIX="$RUNANYWHERE_ENGINES/sherpa-onnx-$SHERPA_VERSION"
RUNANYWHERE_PKGCONFIG="$RUNANYWHERE_ENGINES/pkgconfig"
MODEL_PACKAGES="$RUNANYWHERE_ENGINES/model-packages"
# Real photographs (PNG and JPEG) that scikit-image ships as sample data: the vision tests'
# real images. Third-party files, kept in the cache.
IMAGE_SET_PACKAGE="scikit-image==0.26.0"
IMAGE_SET="$MODEL_PACKAGES/$IMAGE_SET_PACKAGE/skimage/data"
_tools_key=$(printf '%s\n' "${PYTHON_TOOLS_PACKAGES[@]}" | cksum | cut -d' ' -f1)
PYTHON_TOOLS="$RUNANYWHERE_ENGINES/python-tools-$_tools_key"
_server_key=$(printf '%s\n' "$LLAMA_PREFIX" "${LLAMA_SERVER_PACKAGES[@]}" | cksum | cut -d' ' -f1)
LLAMA_SERVER_HOME="$RUNANYWHERE_ENGINES/llama-cpp-python-server-$LLAMA_CPP_PY_VERSION-$_server_key"
# llama.cpp's JSON-schema-to-grammar test cases, extracted from the llama-cpp-python sdist
# by the bootstrap (scripts/extract_schema_cases.py): third-party source, never committed.
SCHEMA_CASES="$RUNANYWHERE_ENGINES/conformance/json-schema-to-grammar-$LLAMA_CPP_PY_VERSION.json"

_repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Real human recordings with transcripts (scripts/fetch_real_speech.py), keyed by the
# script's checksum: a change to the set fetches it again into a new folder.
_speech_key=$(cksum <"$_repo_root/scripts/fetch_real_speech.py" | cut -d' ' -f1)
SPEECH_SET="$RUNANYWHERE_ENGINES/speech-set-$_speech_key"
RUNANYWHERE_CLI="${RUNANYWHERE_CLI:-$_repo_root/.build/release/runanywhere}"

export PKG_CONFIG_PATH="$RUNANYWHERE_PKGCONFIG${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$LLAMA_PREFIX/lib:$WHISPER_PREFIX/lib:$SHERPA_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# For tests: they run `python3` with PYTHONPATH set to the tools folder, and read the cases.
export RUNANYWHERE_PYTHON_TOOLS="$PYTHON_TOOLS"
export RUNANYWHERE_SCHEMA_CASES="$SCHEMA_CASES"
# The real model chat templates of the llama-cpp-python sdist (tests render each of them).
export RUNANYWHERE_CHAT_TEMPLATES="$LLAMA_PREFIX/share/chat-templates"
# Installed model packages (pip --target folders, one per "name==version"), e.g. the
# all-MiniLM-L6-v2 weights minilm_reference.py reads.
export RUNANYWHERE_MODEL_PACKAGES="$MODEL_PACKAGES"
# The real-speech test set: `bench stt --real` and the real-speech tests.
export RUNANYWHERE_SPEECH_SET="$SPEECH_SET"
# The real photographs: the vision tests.
export RUNANYWHERE_IMAGE_SET="$IMAGE_SET"
# llama-cpp-python's server: $RUNANYWHERE_LLAMA_CPP_SERVER_HOME/site goes on PYTHONPATH
# (scripts/llama_cpp_server.sh does that).
export RUNANYWHERE_LLAMA_CPP_SERVER_HOME="$LLAMA_SERVER_HOME"

print_env() {
  printf 'export PKG_CONFIG_PATH=%q\n' "$PKG_CONFIG_PATH"
  printf 'export LD_LIBRARY_PATH=%q\n' "$LD_LIBRARY_PATH"
  printf 'export RUNANYWHERE_PYTHON_TOOLS=%q\n' "$RUNANYWHERE_PYTHON_TOOLS"
  printf 'export RUNANYWHERE_SCHEMA_CASES=%q\n' "$RUNANYWHERE_SCHEMA_CASES"
  printf 'export RUNANYWHERE_CHAT_TEMPLATES=%q\n' "$RUNANYWHERE_CHAT_TEMPLATES"
  printf 'export RUNANYWHERE_MODEL_PACKAGES=%q\n' "$RUNANYWHERE_MODEL_PACKAGES"
  printf 'export RUNANYWHERE_SPEECH_SET=%q\n' "$RUNANYWHERE_SPEECH_SET"
  printf 'export RUNANYWHERE_IMAGE_SET=%q\n' "$RUNANYWHERE_IMAGE_SET"
  printf 'export RUNANYWHERE_LLAMA_CPP_SERVER_HOME=%q\n' "$RUNANYWHERE_LLAMA_CPP_SERVER_HOME"
}
