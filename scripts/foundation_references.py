#!/usr/bin/env python3
"""Which of a program's modules need full Foundation (libFoundation.so), and for what.

    scripts/foundation_references.py [--config release|debug] [--product runanywhere] [--symbols]

On Linux, FoundationEssentials (Data, URL, Date, JSONEncoder, FileManager by path, ...) is a
library of its own; full Foundation adds CoreFoundation, ICU and FoundationInternationalization,
and its loading alone costs a process about 6.5 MiB (`runanywhere bench startup`: the floors of a
Foundation hello world and a FoundationEssentials one). A program maps libFoundation.so while
any object it links refers to one of its symbols. This lists, per module (SwiftPM target) of the
product's link, how many of libFoundation's symbols its objects use and in how many objects;
with --symbols, which symbols and where.

Reads the objects SwiftPM linked (<bin>/<product>.product/Objects.LinkFileList): build first.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys


def defined_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="release", choices=["release", "debug"])
    parser.add_argument("--product", default="runanywhere")
    parser.add_argument("--symbols", action="store_true", help="list the symbols and the objects using them")
    options = parser.parse_args()

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bin_path = subprocess.run(
        ["swift", "build", "-c", options.config, "--show-bin-path"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    link_list = os.path.join(bin_path, options.product + ".product", "Objects.LinkFileList")
    if not os.path.exists(link_list):
        sys.exit(f"{link_list}: no such file; build {options.product} ({options.config}) first")
    swiftc = shutil.which("swiftc")
    if not swiftc:
        sys.exit("no swiftc on PATH")
    library = os.path.join(os.path.dirname(os.path.realpath(swiftc)), "..", "lib", "swift", "linux", "libFoundation.so")
    foundation = defined_symbols(library)

    uses = collections.defaultdict(lambda: collections.defaultdict(set))  # module -> symbol -> objects
    for line in open(link_list):
        path = line.strip().strip('"')
        if not path.endswith(".o"):
            continue
        match = re.search(r"/([^/]+)\.build/([^/]+)\.o$", path)
        module, name = (match.group(1), match.group(2)) if match else (path, path)
        undefined = subprocess.run(["nm", "-u", path], capture_output=True, text=True).stdout.split()
        for symbol in undefined:
            if symbol in foundation:
                uses[module][symbol].add(name.removesuffix(".swift"))

    if not uses:
        print(f"{options.product}: no object refers to libFoundation.so")
        return
    for module, symbols in sorted(uses.items(), key=lambda item: -len(item[1])):
        objects = set().union(*symbols.values())
        print(f"{module:32} {len(symbols):4} symbols in {len(objects):3} objects")
        if options.symbols:
            names = sorted(symbols)
            readable = subprocess.run(
                ["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True
            ).stdout.splitlines()
            for symbol, text in sorted(zip(names, readable), key=lambda pair: pair[1]):
                print(f"    {text[:90]:90}  {' '.join(sorted(symbols[symbol]))}")


if __name__ == "__main__":
    main()
