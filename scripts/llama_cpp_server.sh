#!/usr/bin/env bash
# Runs llama-cpp-python's OpenAI-compatible server (installed by `scripts/bootstrap engines`)
# on 127.0.0.1, in the foreground: a reference server for the tests.
#
#   scripts/llama_cpp_server.sh --model FILE.gguf --port N [more llama_cpp.server options…]
#
# It execs Python, so its pid is the server's: kill it to stop the server. Ready once
# GET /v1/models answers.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/env.sh
source "$here/env.sh"

site="$RUNANYWHERE_LLAMA_CPP_SERVER_HOME/site"
if [ ! -f "$RUNANYWHERE_LLAMA_CPP_SERVER_HOME/.complete" ]; then
  printf 'llama_cpp_server.sh: llama-cpp-python server not installed in %s: run scripts/bootstrap engines\n' \
    "$RUNANYWHERE_LLAMA_CPP_SERVER_HOME" >&2
  exit 1
fi

export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
exec "${PYTHON:-python3}" -m llama_cpp.server --host 127.0.0.1 "$@"
