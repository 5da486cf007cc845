#!/usr/bin/env python3
"""The two steps of scripts/make_order_file.sh that read traces.

  order_file.py traced NM_LISTING TRACE > traced.txt
      The instrumented CLI's trace ("MODULE OFFSET" per first call, scripts/order_trace.c) as
      function symbols, first call first, each once.

  order_file.py refine NM_LISTING ORDER FAULTS > additions.txt
      The release CLI's first address run on each code page (scripts/page_trace.c), against
      its layout: the functions holding those addresses that ORDER lacks. Prints them and, on
      stderr, how many there were.

NM_LISTING is `nm --defined-only -S` of the binary the trace or the faults come from. The
compiler's unnamed private functions have no symbol: an address in one is skipped (the linker
script scripts/plugin-host-layout.ld groups them instead).
"""
import bisect
import os
import sys


def function_lookup(listing):
    """A function from an address to the name of the function symbol whose code holds it, or
    None in code no symbol covers."""
    table = []
    for line in open(listing):
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            table.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    table.sort()
    starts = [start for start, _, _ in table]

    def function_at(address):
        i = bisect.bisect_right(starts, address) - 1
        if i < 0:
            return None
        start, size, name = table[i]
        return name if address < start + size else None

    return function_at


def traced(listing, trace):
    function_at = function_lookup(listing)
    seen = set()
    for line in open(trace):
        module, offset = line.rsplit(None, 1)
        if os.path.basename(module) != "runanywhere":  # dladdr names the program by its argv[0]
            continue
        name = function_at(int(offset, 16))
        if name and name not in seen and not name.startswith("__asan"):
            seen.add(name)
            print(name)


def refine(listing, order_file, faults_file):
    function_at = function_lookup(listing)
    ordered = {line.strip() for line in open(order_file)}
    faults = [int(line, 16) for line in open(faults_file) if line.strip()]
    if not faults:
        sys.exit("order_file.py: no code page was traced (is scripts/page_trace.c loaded?)")
    added = []
    for address in faults:
        name = function_at(address)
        if name and name not in ordered:
            ordered.add(name)
            added.append(name)
    print(f"{len(faults)} code pages run, {len(added)} functions added", file=sys.stderr)
    for name in added:
        print(name)


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"traced": traced, "refine": refine}[command](*arguments)
