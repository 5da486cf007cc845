#!/usr/bin/env bash
# Regenerates scripts/runanywhere.order, the order in which the linker lays out the CLI's
# functions and its conformance descriptors (--symbol-ordering-file, in Package.swift's
# plugin-host linker settings):
#
#   scripts/make_order_file.sh        (after `make build-release`; the instrumented build takes
#                                      15–40 minutes on 2 cores, the rest a minute)
#
# Why: the kernel maps a program's code 64 KiB around each page it runs. With the functions in
# source order, a 2-token generation ran code spread over the CLI's 21 MB of text and kept
# 6.0 MiB of it resident; in start-up order, 1.2 MiB.
#
# How, in two steps:
# 1. A release build of the CLI instrumented at every function entry
#    (-sanitize-coverage=func,trace-pc-guard; Swift accepts it only with a sanitizer, hence
#    -sanitize=address) records each function the first time it runs (scripts/order_trace.c)
#    while it runs the commands `runanywhere bench startup` measures and a chat-template
#    generation: their functions in first-call order.
# 2. The instrumented build inlines and merges a little differently, so the release CLI, linked
#    with that order, runs the same commands with its code pages trapped (scripts/page_trace.c):
#    the function first run on each page outside the order joins it, and the CLI is linked
#    again, until a round adds nothing (scripts/order_file.py).
# The compiler's unnamed private functions have no name to order; scripts/plugin-host-layout.ld
# groups them. Names the linker does not find are skipped, so a stale order costs memory, never
# a build. Refresh it when the start-up path changes much: `runanywhere bench startup` shows it.
# SwiftPM does not track the order or the linker script: after changing either, remove the
# plugin hosts' binaries (this script relinks the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
eval "$(print_env)"

build=$(realpath -m "${RUNANYWHERE_ORDER_BUILD:-.build-order}")
release_flags=$(make -s --no-print-directory print-release-flags)
model=${RUNANYWHERE_ORDER_MODEL:-smollm2-135m-instruct}
plugins=$(swift build -c release --show-bin-path)/plugins
[ -d "$plugins" ] || { echo "$0: no $plugins: run make build-release first" >&2; exit 1; }

# The CLI's version script exports only the core's symbols; the sanitizer's allocator must be
# exported too, or the Swift libraries would allocate with libc's malloc and the program ask
# the sanitizer for the size of that memory.
toolchain=$(dirname "$(readlink -f "$(command -v swiftc)")")/..
asan_symbols=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.asan-"$(uname -m)".a.syms | head -n 1)
[ -f "$asan_symbols" ] || { echo "$0: the toolchain has no address sanitizer runtime" >&2; exit 1; }
mkdir -p "$build"
cc -O2 -fPIC -Wall -c scripts/order_trace.c -o "$build/order_trace.o"
swift build -c release --build-path "$build" --product runanywhere \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=func,trace-pc-guard \
    -Xlinker "$build/order_trace.o" -Xlinker "--version-script=$asan_symbols"
bin=$(swift build -c release --build-path "$build" --show-bin-path)
# The instrumented CLI opens the release build's engine plugins, found beside it.
rm -rf "$bin/plugins"
cp -R "$plugins" "$bin/plugins"

work=$(mktemp -d)
cp scripts/runanywhere.order "$work/previous.order"
# A run that fails half-way puts the committed order back.
trap 'status=$?; [ $status -eq 0 ] || cp "$work/previous.order" scripts/runanywhere.order; rm -rf "$work"' EXIT
scenarios() {
    "$@" --version
    "$@" models list
    "$@" generate --model "$model" --prompt "The capital of France is" --max-tokens 2 --raw --temperature 0
    "$@" generate --model "$model" --prompt "Name three colours." --max-tokens 8 --temperature 0
}
traced_run() {
    RUNANYWHERE_ORDER_TRACE="$work/trace.txt" ASAN_OPTIONS=detect_leaks=0:check_malloc_usable_size=0 \
        "$bin/runanywhere" "$@" >/dev/null
}
scenarios traced_run
nm --defined-only -S "$bin/runanywhere" >"$work/instrumented.nm"
scripts/order_file.py traced "$work/instrumented.nm" "$work/trace.txt" >"$work/traced.txt"
echo "traced: $(wc -l <"$work/traced.txt") functions"

release=$(swift build -c release --show-bin-path)
cc -O2 -shared -fPIC -Wall scripts/page_trace.c -o "$work/page_trace.so"
paged_run() {
    # The Swift runtime's crash reporter would take the fault handler the trace needs.
    RUNANYWHERE_PAGE_TRACE="$work/faults.txt" LD_PRELOAD="$work/page_trace.so" SWIFT_BACKTRACE=enable=no \
        "$release/runanywhere" "$@" >/dev/null
}
link_release() {
    rm -f "$release/runanywhere"
    swift build -c release $release_flags --product runanywhere
}
cp "$work/traced.txt" scripts/runanywhere.order
for round in 1 2 3 4 5 6 7 8 9 10; do
    link_release
    : >"$work/faults.txt"
    scenarios paged_run
    nm --defined-only -S "$release/runanywhere" >"$work/release.nm"
    echo -n "round $round: "
    scripts/order_file.py refine "$work/release.nm" scripts/runanywhere.order "$work/faults.txt" >"$work/added.txt"
    [ -s "$work/added.txt" ] || break
    cat "$work/added.txt" >>scripts/runanywhere.order
done
functions=$(wc -l <scripts/runanywhere.order)
# Then the protocol conformance descriptors ($s…Mc), which are data: the runtime's conformance
# scans (the first uncached dynamic cast or generic instantiation) read every one of them. With
# -function-sections each is an input section of its own, so the order gathers them: 8,242 took
# 129 pages of .rodata together instead of 218 spread out, 0.6 MiB off every command's peak.
awk '$NF ~ /Mc$/ {print $NF}' "$work/release.nm" | sort -u >>scripts/runanywhere.order
link_release
echo "scripts/runanywhere.order: $functions functions, $(($(wc -l <scripts/runanywhere.order) - functions)) conformance descriptors"
