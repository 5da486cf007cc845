#!/usr/bin/env bash
# Links the engine backends that ship as plugins into shared libraries, from the objects
# `swift build` made:
#
#   scripts/build_plugins.sh [debug|release]     → .build/<config>/plugins/libRunAnywhere<X>Plugin.so
#
# Why not a SwiftPM dynamic library product: SwiftPM links every dependency of a product's
# targets into it, so such a plugin would carry its own copy of the RunAnywhere core, whose
# types are not the host's. Here a plugin gets the backend's objects and its entry point's,
# nothing else: the core's symbols stay unresolved and the loader binds them to the host's
# core (executables export it with -Xlinker --export-dynamic). `-z nodelete` keeps the
# library mapped for the life of the process, as the Swift runtime needs.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-debug}"
case "$config" in debug|release) ;; *) echo "usage: $0 [debug|release]" >&2; exit 2 ;; esac

# Backends shipped as plugins, each with a target RunAnywhere<X>Plugin holding its entry point.
plugins=(WhisperCPP)

bin=$(swift build -c "$config" --show-bin-path)
mkdir -p "$bin/plugins"
for plugin in "${plugins[@]}"; do
  objects=()
  for target in "RunAnywhere$plugin" "RunAnywhere${plugin}Plugin"; do
    found=("$bin/$target.build/"*.o)
    [ -e "${found[0]}" ] || { echo "$0: no objects in $bin/$target.build: run swift build -c $config first" >&2; exit 1; }
    objects+=("${found[@]}")
  done
  out="$bin/plugins/libRunAnywhere${plugin}Plugin.so"
  # Relink only when an object is newer than the library.
  if [ -f "$out" ] && [ -z "$(find "${objects[@]}" -newer "$out" -print -quit)" ]; then
    echo "plugin $out is up to date"
    continue
  fi
  swiftc -emit-library -o "$out.partial" "${objects[@]}" -Xlinker -z -Xlinker nodelete
  # Nothing of the core may be inside: its type descriptors must come from the host.
  if nm --defined-only "$out.partial" | grep -q ' [RrDd] \$s11RunAnywhere9ModelInfoVMn$'; then
    echo "$0: $out.partial defines the core's ModelInfo: a second core" >&2; exit 1
  fi
  mv "$out.partial" "$out"
  echo "plugin $out"
done
