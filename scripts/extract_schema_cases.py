#!/usr/bin/env python3
"""Turns llama.cpp's tests/test-json-schema-to-grammar.cpp into a JSON list of its cases.

Each `test({ STATUS, "description", R"d(schema)d", R"d(grammar)d" })` call in the file
becomes {"description", "status", "schema", "expected_grammar"}. Strings keep the value the
C++ program sees: a raw string's text exactly as in the file, an ordinary literal with its
escapes decoded, adjacent literals joined. The expected grammar is kept as written: llama.cpp
compares it after trim() (strip the ends, drop each line's leading spaces and tabs).

The file is third-party source: the bootstrap fetches it from the llama-cpp-python sdist and
runs this script; neither the file nor the output is committed. Standard library only.

    extract_schema_cases.py --input test-json-schema-to-grammar.cpp --output cases.json
"""

import argparse
import json
import os
import re
import sys
import tempfile

STATUSES = ("SUCCESS", "FAILURE")


class ParseError(Exception):
    pass


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


# ---------------------------------------------------------------- tokenizer
# Enough of C++'s lexical grammar to walk the file without being fooled by comments or by
# anything inside a string: identifiers, numbers, string and character literals (raw or
# not, with any encoding prefix), and single-character punctuation.

IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*")
STRING_PREFIXES = ("u8", "u", "U", "L", "")
RAW_DELIM = re.compile(r'[^ ()\\\t\v\f\n]{0,16}')

SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "\\": "\\", "'": "'", '"': '"', "?": "?",
}


def decode_escapes(body, text, start):
    """The value of an ordinary (non-raw) literal's body."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise ParseError(f"line {line_of(text, start)}: dangling backslash in a string literal")
        c = body[i]
        if c == "\n":  # line splice
            i += 1
        elif c in SIMPLE_ESCAPES:
            out.append(SIMPLE_ESCAPES[c])
            i += 1
        elif c in "01234567":
            m = re.compile(r"[0-7]{1,3}").match(body, i)
            out.append(chr(int(m.group(0), 8)))
            i = m.end()
        elif c == "x":
            m = re.compile(r"[0-9A-Fa-f]+").match(body, i + 1)
            if not m:
                raise ParseError(f"line {line_of(text, start)}: \\x with no hex digits")
            out.append(chr(int(m.group(0), 16)))
            i = m.end()
        elif c in "uU":
            n = 4 if c == "u" else 8
            digits = body[i + 1:i + 1 + n]
            if len(digits) != n or not re.fullmatch(r"[0-9A-Fa-f]+", digits):
                raise ParseError(f"line {line_of(text, start)}: bad \\{c} escape")
            out.append(chr(int(digits, 16)))
            i += 1 + n
        else:
            raise ParseError(f"line {line_of(text, start)}: unknown escape \\{c}")
    return "".join(out)


def tokenize(text):
    """Yields (kind, value, offset); kind is 'ident', 'number', 'string', 'char' or 'punct'."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n\v\f":
            i += 1
        elif text.startswith("\\\n", i):
            i += 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ParseError(f"line {line_of(text, i)}: unterminated comment")
            i = j + 2
        elif c == "#" and text[text.rfind("\n", 0, i) + 1:i].strip() == "":
            # A preprocessor line, with its continuations: skipped whole (no test is in one,
            # and `#include <x.h>` is no C++ token stream).
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0 or text[k - 1] != "\\":
                    i = n if k < 0 else k + 1
                    break
                j = k + 1
        elif c == '"' or c == "'" or IDENT.match(text, i):
            m = IDENT.match(text, i)
            word = m.group(0) if m else ""
            after = i + len(word)
            quote = text[after] if after < n else ""
            if quote == '"' and word.endswith("R") and word[:-1] in STRING_PREFIXES:
                d = RAW_DELIM.match(text, after + 1)
                delim = d.group(0)
                if d.end() >= n or text[d.end()] != "(":
                    raise ParseError(f"line {line_of(text, i)}: bad raw string delimiter")
                body_start = d.end() + 1
                closing = ")" + delim + '"'
                end = text.find(closing, body_start)
                if end < 0:
                    raise ParseError(f"line {line_of(text, i)}: unterminated raw string R\"{delim}(")
                yield ("string", text[body_start:end], i)
                i = end + len(closing)
            elif quote in ('"', "'") and word in STRING_PREFIXES:
                j = after + 1
                while True:
                    if j >= n or text[j] == "\n":
                        raise ParseError(f"line {line_of(text, i)}: unterminated literal")
                    if text[j] == "\\":
                        j += 2
                        continue
                    if text[j] == quote:
                        break
                    j += 1
                body = text[after + 1:j]
                if quote == '"':
                    yield ("string", decode_escapes(body, text, i), i)
                else:
                    yield ("char", body, i)
                i = j + 1
            else:
                yield ("ident", word, i)
                i = after
        elif NUMBER.match(text, i) and (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())):
            m = NUMBER.match(text, i)
            yield ("number", m.group(0), i)
            i = m.end()
        else:
            yield ("punct", c, i)
            i += 1


# ---------------------------------------------------------------- test({ ... }) calls

OPEN = {"(": ")", "{": "}", "[": "]"}


def split_arguments(tokens, start, text):
    """From just after `test ( {`, the initializer's top-level items and the index after `} )`."""
    items, current, stack = [], [], []
    i = start
    while i < len(tokens):
        kind, value, pos = tokens[i]
        if kind == "punct" and value in OPEN:
            stack.append(OPEN[value])
        elif kind == "punct" and value in (")", "}", "]"):
            if not stack:
                if value != "}":
                    raise ParseError(f"line {line_of(text, pos)}: expected '}}' closing the test case, got {value!r}")
                if current:
                    items.append(current)
                j = i + 1
                if j >= len(tokens) or tokens[j][:2] != ("punct", ")"):
                    raise ParseError(f"line {line_of(text, pos)}: expected ')' after the test case")
                return items, j + 1
            if stack.pop() != value:
                raise ParseError(f"line {line_of(text, pos)}: unbalanced {value!r}")
        elif kind == "punct" and value == "," and not stack:
            if not current:
                raise ParseError(f"line {line_of(text, pos)}: empty item in a test case")
            items.append(current)
            current = []
            i += 1
            continue
        current.append(tokens[i])
        i += 1
    raise ParseError("end of file inside a test case")


def string_item(item, what, text):
    if not item or any(kind != "string" for kind, _, _ in item):
        pos = item[0][2] if item else 0
        raise ParseError(f"line {line_of(text, pos)}: the {what} is not a string literal")
    return "".join(value for _, value, _ in item)


def status_item(item, text):
    # SUCCESS, or TestCaseStatus::SUCCESS
    words = [value for kind, value, _ in item if kind == "ident"]
    rest = [value for kind, value, _ in item if kind != "ident"]
    if not words or words[-1] not in STATUSES or any(v != ":" for v in rest):
        pos = item[0][2] if item else 0
        raise ParseError(f"line {line_of(text, pos)}: expected SUCCESS or FAILURE as the status")
    return words[-1]


def extract(text):
    tokens = list(tokenize(text))
    cases = []
    i = 0
    while i + 2 < len(tokens):
        if tokens[i][:2] == ("ident", "test") and tokens[i + 1][:2] == ("punct", "(") \
                and tokens[i + 2][:2] == ("punct", "{") \
                and not (i > 0 and tokens[i - 1][0] == "punct" and tokens[i - 1][1] in ".>:"):
            items, i = split_arguments(tokens, i + 3, text)
            line = line_of(text, tokens[i - 1][2])
            if len(items) != 4:
                raise ParseError(f"line {line}: a test case with {len(items)} items, expected 4")
            cases.append({
                "description": string_item(items[1], "description", text),
                "status": status_item(items[0], text),
                "schema": string_item(items[2], "schema", text),
                "expected_grammar": string_item(items[3], "expected grammar", text),
            })
        else:
            i += 1
    return cases


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True, help="test-json-schema-to-grammar.cpp")
    parser.add_argument("--output", required=True, help="the JSON file to write (atomically)")
    parser.add_argument("--min-cases", type=int, default=1, help="fail with fewer cases than this")
    args = parser.parse_args()

    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    try:
        cases = extract(text)
    except ParseError as e:
        print(f"{args.input}: {e}", file=sys.stderr)
        return 1
    if len(cases) < args.min_cases:
        print(f"{args.input}: {len(cases)} test cases, expected at least {args.min_cases}", file=sys.stderr)
        return 1
    # A plain count of the calls, as a cross-check of the tokenizer (comments could fool it,
    # so a difference is only reported).
    naive = len(re.findall(r"\btest\s*\(\s*\{", text))
    if naive != len(cases):
        print(f"note: {naive} 'test({{' in the text, {len(cases)} test cases parsed", file=sys.stderr)
    for case in cases:
        if case["status"] == "SUCCESS" and "root ::=" not in case["expected_grammar"]:
            print(f"{args.input}: SUCCESS case {case['description']!r} has no root rule", file=sys.stderr)
            return 1

    write_atomically(args.output, json.dumps(cases, indent=2, ensure_ascii=False) + "\n")

    success = sum(c["status"] == "SUCCESS" for c in cases)
    print(f"{len(cases)} cases ({success} SUCCESS, {len(cases) - success} FAILURE) in {args.output}")
    for case in cases:
        try:
            json.loads(case["schema"])
        except ValueError as e:
            print(f"schema not valid JSON ({case['status']}): {case['description']!r}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
