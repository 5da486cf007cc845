#!/usr/bin/env python3
"""The two steps of scripts/make_order_file.sh that read traces.

  order_file.py traced NM_LISTING TRACE > traced.txt
      The instrumented CLI's trace ("MODULE OFFSET" per first call, scripts/order_trace.c)
      as function symbols, first call first, each once.

  order_file.py refine NM_LISTING TRACED SUPPLEMENT PAGES > new-supplement.txt
      The release CLI's executed code pages (scripts/page_trace.c) against its layout: of the
      supplement, the functions on executed pages stay; every function on an executed page
      outside the traced functions and the supplement joins it. Prints the new supplement and,
      on stderr, how many executed pages lay outside the ordered functions.

NM_LISTING is `nm --defined-only -S` of the binary the trace or the pages come from.
"""
import bisect
import os
import sys

PAGE = 4096


def functions(listing):
    """(address, size, name) of every function symbol, by address."""
    found = []
    for line in open(listing):
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            found.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        elif len(parts) == 3 and parts[1] in "tTwW":
            found.append((int(parts[0], 16), 0, parts[2]))
    found.sort()
    return found


def traced(listing, trace):
    table = functions(listing)
    addresses = [address for address, _, _ in table]
    seen = set()
    for line in open(trace):
        module, offset = line.split()
        if os.path.basename(module) != "runanywhere":  # dladdr names the program by its argv[0]
            continue
        i = bisect.bisect_right(addresses, int(offset, 16)) - 1
        name = table[i][2] if i >= 0 else None
        if name and name not in seen and not name.startswith("__asan"):
            seen.add(name)
            print(name)


def refine(listing, traced_file, supplement_file, pages_file):
    table = [entry for entry in functions(listing) if entry[1] > 0]
    ordered = {line.strip() for line in open(traced_file)}
    supplement = [line.strip() for line in open(supplement_file) if line.strip()]
    pages = {int(line, 16) for line in open(pages_file)}

    def on_executed_page(address, size):
        first = address // PAGE * PAGE
        return any(page in pages for page in range(first, address + size, PAGE))

    kept, added, outside = [], [], set()
    in_supplement = set(supplement)
    executed = {}
    for address, size, name in table:
        if on_executed_page(address, size):
            executed[name] = True
            if name not in ordered and name not in in_supplement:
                added.append(name)
                outside.update(range(address // PAGE * PAGE, address + size, PAGE))
    kept = [name for name in supplement if executed.get(name)]
    print(
        f"{len(pages)} code pages executed, {len(outside & pages)} outside the ordered functions; "
        f"supplement {len(supplement)} → {len(kept)} kept + {len(added)} added",
        file=sys.stderr,
    )
    for name in kept + added:
        print(name)


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    {"traced": traced, "refine": refine}[command](*arguments)
