#!/usr/bin/env bash
# Regenerates scripts/runanywhere.order, the order in which the linker lays out the CLI's
# functions (--symbol-ordering-file, in Package.swift's plugin-host linker settings):
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
#    with that order, runs the same commands with its code pages trapped (scripts/page_trace.c);
#    the functions on executed pages outside the order join it, and on the next round those
#    whose pages stayed idle leave it again. Three rounds (scripts/order_file.py).
# The compiler's unnamed private functions have no name to order; scripts/plugin-host-layout.ld
# groups them. Names the linker does not find are skipped, so a stale order costs memory, never
# a build. Refresh it when the start-up path changes much: `runanywhere bench startup` shows it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
eval "$(print_env)"

build=${RUNANYWHERE_ORDER_BUILD:-.build-order}
release_flags=$(make -s -C "$PWD" print-release-flags)
model=${RUNANYWHERE_ORDER_MODEL:-smollm2-135m-instruct}
plugins=$(swift build -c release --show-bin-path)/plugins
[ -d "$plugins" ] || { echo "$0: no $plugins: run make build-release first" >&2; exit 1; }

# The CLI's version script exports only the core's symbols; the sanitizer's allocator must be
# exported too, or the Swift libraries would allocate with libc's malloc and the program ask
# the sanitizer for the size of that memory.
asan_symbols=$(ls "$(dirname "$(readlink -f "$(command -v swiftc)")")"/../lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a.syms)
mkdir -p "$build"
cc -O2 -fPIC -Wall -c scripts/order_trace.c -o "$build/order_trace.o"
swift build -c release --build-path "$build" --product runanywhere \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=func,trace-pc-guard \
    -Xlinker "$PWD/$build/order_trace.o" -Xlinker "--version-script=$asan_symbols"
bin=$(swift build -c release --build-path "$build" --show-bin-path)
# The instrumented CLI opens the release build's engine plugins, found beside it.
rm -rf "$bin/plugins"
cp -R "$plugins" "$bin/plugins"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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

# Then the release CLI, linked with that order, runs the same commands with its code pages
# traced (scripts/page_trace.c); functions on executed pages outside the ordered ones join the
# order, and those that turn out idle on a later round leave it. Three rounds.
release=$(swift build -c release --show-bin-path)
cc -O2 -shared -fPIC -Wall scripts/page_trace.c -o "$work/page_trace.so"
paged_run() {
    RUNANYWHERE_PAGE_TRACE="$work/pages.txt" LD_PRELOAD="$work/page_trace.so" SWIFT_BACKTRACE=enable=no \
        "$release/runanywhere" "$@" >/dev/null
}
link_release() {
    cat "$work/traced.txt" "$work/supplement.txt" >scripts/runanywhere.order
    rm -f "$release/runanywhere"  # the order file is not an input SwiftPM tracks
    swift build -c release $release_flags --product runanywhere
}
: >"$work/supplement.txt"
for round in 1 2 3; do
    link_release
    : >"$work/pages.txt"
    scenarios paged_run
    nm --defined-only -S "$release/runanywhere" >"$work/release.nm"
    echo -n "round $round: "
    scripts/order_file.py refine "$work/release.nm" "$work/traced.txt" "$work/supplement.txt" "$work/pages.txt" \
        >"$work/next.txt"
    mv "$work/next.txt" "$work/supplement.txt"
done
link_release
echo "scripts/runanywhere.order: $(wc -l <scripts/runanywhere.order) functions"
