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
# core (executables export it: -Xlinker --export-dynamic, limited to the core's symbols by
# scripts/plugin-host-exports.list). `-z nodelete` keeps the
# library mapped for the life of the process, as the Swift runtime needs.
#
# Every engine plugin gets its description (see PluginEntry) in a `.runanywhere_plugin` section,
# read by hosts without opening it; `runanywhere` links no engine and finds these next to it.
# The MCP client's plugin (plugins/tools/) has none: it is opened only when asked for.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-debug}"
case "$config" in debug|release) ;; *) echo "usage: $0 [debug|release]" >&2; exit 2 ;; esac

# Each engine backend ships as a plugin, and so do the pieces the core asks for that need
# libraries a command should not map until it uses them: storage (RAG indexes and telemetry
# queues on GRDB, solutions' YAML on Yams, both needing full Foundation), the remote engines and
# the control plane's client (SwiftNIO, async-http-client). For each: the pkg-config packages
# of its engine, and the plugins it takes code from (linked, found next to it).
#
# The objects that go in are those of the plugin's entry target and every target it depends on
# (SwiftPM's build description lists them), less the host's: the core and its dependencies,
# swift-log among them, bound to the host's copies; and less what the plugins it takes code
# from hold, so that code exists once (one espeak-ng, one SwiftNIO). A plugin keeps its own
# copy of anything else (the MCP plugin's swift-system): a host need not link it, and none of
# its types cross.
plugins=(WhisperCPP LlamaCPP SystemVoice Sherpa PocketSphinx Resemblyzer SQLite YAML Remote ControlPlane MCP)   # dependencies first
declare -A packages=(
  [WhisperCPP]="" [LlamaCPP]="runanywhere-llama" [SystemVoice]="espeak-ng" [Sherpa]="runanywhere-sherpa"
  [PocketSphinx]="pocketsphinx" [Resemblyzer]="openblas" [MCP]="" [SQLite]="sqlite3" [YAML]=""
  [Remote]="" [ControlPlane]=""
)
# Piper voices take espeak-ng phonemes from the system voice's code: one copy of it, one
# espeak-ng. The control plane's client speaks through the remote engines' HTTP client.
declare -A uses=([Sherpa]="SystemVoice" [ControlPlane]="Remote")
# Tool-server plugins are no engines: they go in plugins/tools/, which hosts do not scan, and
# are opened only when asked for (`chat --mcp`); they carry no engine description.
declare -A folders=([MCP]="tools")

bin=$(swift build -c "$config" --show-bin-path)
host="$bin/runanywhere-plugin-host"
[ -x "$host" ] || { echo "$0: no $host: run swift build -c $config first" >&2; exit 1; }
mkdir -p "$bin/plugins/tools"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The targets of a plugin's objects, one per line (see above).
plugin_targets() {
  python3 - "$bin/description.json" "$1" ${uses[$1]:-} <<'PY'
import json, sys
dependencies = json.load(open(sys.argv[1]))["targetDependencyMap"]
def closure(target):
    return {target, *dependencies.get(target, [])}
plugin, used = sys.argv[2], sys.argv[3:]
targets = closure(f"RunAnywhere{plugin}Plugin") - closure("RunAnywhere")
for other in used:
    targets -= closure(f"RunAnywhere{other}Plugin")
print("\n".join(sorted(targets)))
PY
}

for plugin in "${plugins[@]}"; do
  objects=()
  entry="RunAnywhere${plugin}Plugin"
  mapfile -t targets < <(plugin_targets "$plugin")
  for target in "${targets[@]}"; do
    # C targets (CYaml) keep their objects in subfolders; system libraries have none.
    mapfile -t found < <(find "$bin/$target.build" -name '*.o' 2>/dev/null | sort)
    if [ "${#found[@]}" -eq 0 ] && [ "$target" = "$entry" ]; then
      echo "$0: no objects in $bin/$target.build: run swift build -c $config first" >&2
      exit 1
    fi
    objects+=("${found[@]}")
  done
  out="$bin/plugins/${folders[$plugin]:+${folders[$plugin]}/}libRunAnywhere${plugin}Plugin.so"
  links=()
  for used in ${uses[$plugin]:-}; do
    links+=("$bin/plugins/libRunAnywhere${used}Plugin.so")
  done
  # Relink only when an object (or a plugin it links) is newer than the library.
  if [ -f "$out" ] && [ -z "$(find "${objects[@]}" "${links[@]}" "$host" -newer "$out" -print -quit)" ]; then
    echo "plugin $out is up to date"
    continue
  fi
  flags=()
  for package in ${packages[$plugin]}; do
    # shellcheck disable=SC2207
    flags+=($(pkg-config --libs "$package"))
  done
  for used in ${uses[$plugin]:-}; do
    flags+=("-L$bin/plugins" "-lRunAnywhere${used}Plugin")
  done
  partial="$scratch/libRunAnywhere${plugin}Plugin.so"
  swiftc -emit-library -o "$partial" "${objects[@]}" "${flags[@]}" \
    -Xlinker -z -Xlinker nodelete -Xlinker -rpath -Xlinker '$ORIGIN'
  # Nothing of the core may be inside: its type descriptors must come from the host. Nor
  # swift-log: its logging system must be the host's, one per process.
  defined=$(nm --defined-only "$partial")
  if grep -q ' [RrDd] \$s11RunAnywhere9ModelInfoVMn$' <<<"$defined"; then
    echo "$0: $partial defines the core's ModelInfo: a second core" >&2; exit 1
  fi
  if grep -q ' [RrDd] \$s7Logging6LoggerVMn$' <<<"$defined"; then
    echo "$0: $partial defines swift-log's Logger: a second logging system" >&2; exit 1
  fi
  if [ -n "${folders[$plugin]:-}" ]; then
    mv "$partial" "$out"
    echo "plugin $out"
    continue
  fi
  # Its description (module, frameworks, services) goes into an ELF section of its own, which
  # hosts read without opening the library: engines are then opened only when first used.
  LD_LIBRARY_PATH="$bin/plugins:${LD_LIBRARY_PATH:-}" "$host" --home "$scratch/home" describe "$partial" \
    | python3 -c 'import json, sys; json.dump(json.loads(sys.stdin.readline())["description"], sys.stdout, sort_keys=True)' \
    >"$scratch/manifest.json"
  objcopy --add-section .runanywhere_plugin="$scratch/manifest.json" \
    --set-section-flags .runanywhere_plugin=noload,readonly "$partial"
  mv "$partial" "$out"
  echo "plugin $out: $(cat "$scratch/manifest.json")"
done
