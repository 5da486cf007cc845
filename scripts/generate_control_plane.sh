#!/usr/bin/env bash
# Generates the control-plane client and server code from
# Sources/RunAnywhereControlPlane/openapi.yaml with swift-openapi-generator, into each target's
# Generated/ folder. The code is committed so builds (and CI) need not build the generator;
# a stamp of the document, the configurations and the generated files lets CI check cheaply
# that the committed code is what the document gives.
#
#   scripts/generate_control_plane.sh           build the generator (once) and regenerate
#   scripts/generate_control_plane.sh --check   regenerate into a temporary folder and diff
#   scripts/generate_control_plane.sh --stamp   only check the stamp (no generator needed)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.14.3
SPEC=Sources/RunAnywhereControlPlane/openapi.yaml
TARGETS=(RunAnywhereControlPlane RunAnywhereControlPlaneServer)
STAMP=Sources/RunAnywhereControlPlane/Generated/openapi.sha256
IMPORTS=Sources/RunAnywhereControlPlane/Generated/internal-imports.txt

stamp() {
  (
    sha256sum "$SPEC"
    for target in "${TARGETS[@]}"; do
      sha256sum "Sources/$target/openapi-generator-config.yaml" "Sources/$target/Generated/"*.swift
    done
    sha256sum "$IMPORTS"
    echo "swift-openapi-generator $VERSION"
  ) | sed 's#  Sources/#  #'
}

if [[ "${1:-}" == "--stamp" ]]; then
  if ! diff <(stamp) "$STAMP"; then
    echo "The generated control-plane code is not what $SPEC gives: run scripts/generate_control_plane.sh" >&2
    exit 1
  fi
  echo "control-plane code is current (stamp matches)"
  exit 0
fi

GENERATOR_HOME=${RUNANYWHERE_OPENAPI_GENERATOR_HOME:-$PWD/.build-openapi-generator}
GENERATOR="$GENERATOR_HOME/.build/release/swift-openapi-generator"
if [[ ! -x "$GENERATOR" ]]; then
  mkdir -p "$GENERATOR_HOME"
  cat > "$GENERATOR_HOME/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "openapi-generator-host",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$VERSION")]
)
SWIFT
  (cd "$GENERATOR_HOME" && swift build -c release --product swift-openapi-generator)
fi

OUT_ROOT=Sources
if [[ "${1:-}" == "--check" ]]; then
  OUT_ROOT=$(mktemp -d)
  trap 'rm -rf "$OUT_ROOT"' EXIT
fi
for target in "${TARGETS[@]}"; do
  mkdir -p "$OUT_ROOT/$target/Generated"
  "$GENERATOR" generate "$SPEC" --config "Sources/$target/openapi-generator-config.yaml" \
    --output-directory "$OUT_ROOT/$target/Generated" >/tmp/openapi-generator.log 2>&1 \
    || { cat /tmp/openapi-generator.log >&2; exit 1; }
done
# Swift 6.3 warns about `package import`s a generated file does not use in package
# declarations (the generator silences that only for Swift 6.4 and later). Those lines, listed
# in $IMPORTS by the last regeneration, become `internal import`s.
apply_internal_imports() { # $1: the folder holding the targets' Generated/ folders
  [[ -f "$IMPORTS" ]] || return 0
  while IFS=: read -r file line; do
    [[ -n "$file" ]] && sed -i "${line}s/package import/internal import/" "$1/$file"
  done < "$IMPORTS"
}
if [[ "${1:-}" == "--check" ]]; then
  apply_internal_imports "$OUT_ROOT"
  status=0
  for target in "${TARGETS[@]}"; do
    diff -r "Sources/$target/Generated" "$OUT_ROOT/$target/Generated" -x openapi.sha256 -x internal-imports.txt \
      || status=1
  done
  [[ $status == 0 ]] && echo "control-plane code is current (regenerated and compared)"
  exit $status
fi
: > "$IMPORTS"
touch Sources/RunAnywhereControlPlane*/Generated/*.swift
(source scripts/env.sh && swift build --target RunAnywhereControlPlaneServer 2>&1) \
  | grep -oE "Sources/RunAnywhereControlPlane[A-Za-z]*/Generated/[^:]+:[0-9]+:[0-9]+: warning: package import of '[^']+' was not used in package declarations" \
  | cut -d: -f1,2 | sed 's#^Sources/##' | sort -u > "$IMPORTS.new" || true
mv "$IMPORTS.new" "$IMPORTS"
apply_internal_imports Sources
stamp > "$STAMP"
echo "generated into Sources/{$(IFS=,; echo "${TARGETS[*]}")}/Generated"
