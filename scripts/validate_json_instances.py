#!/usr/bin/env python3
"""Validates JSON instances against JSON Schemas with the `jsonschema` package, for tests.

Reads JSON Lines on stdin, each {"id": ..., "schema": <schema>, "instance": <instance>}, and
prints one line per input line, in order and flushed at once:

    {"id": ..., "valid": true|false, "errors": ["..."]}

Draft 2020-12, with format checking (FormatChecker) on. Nothing stops the run but the end of
its input: a schema jsonschema rejects gives "schema error: ...", a line that is not a JSON
object gives "input error: ..." (with "id": null when there is none), and blank lines are
skipped. An "instance" that is null or missing is validated as JSON null. The exit status is
0 whatever the verdicts.

    PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS python3 scripts/validate_json_instances.py <cases.jsonl
"""

import json
import os
import sys

try:
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.exceptions import SchemaError
except ImportError as e:  # the tools folder is not on PYTHONPATH
    sys.exit(f"validate_json_instances.py: {e} (run with PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS)")

MAX_ERRORS = 20


def error_text(error):
    # The instance location as a JSON Pointer, "(root)" for the whole instance.
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path]
    where = "/" + "/".join(parts) if parts else "(root)"
    return f"{where}: {error.message}"


def location_key(error):
    # Array indexes in number order, before object keys at the same depth.
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path]


def validate(schema, instance):
    """(valid, errors) for one pair; never raises."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        return False, [f"schema error: {e.message}"]
    try:
        validator = Draft202012Validator(schema, format_checker=FormatChecker())
        errors = sorted(validator.iter_errors(instance), key=location_key)
    except SchemaError as e:
        return False, [f"schema error: {e.message}"]
    except Exception as e:  # e.g. a $ref to nowhere (referencing's Unresolvable), a bad pattern
        return False, [f"schema error: {e}"]
    messages = [error_text(e) for e in errors[:MAX_ERRORS]]
    if len(errors) > MAX_ERRORS:
        messages.append(f"... and {len(errors) - MAX_ERRORS} more")
    return not errors, messages


def handle(line):
    try:
        request = json.loads(line)
    except ValueError as e:
        return {"id": None, "valid": False, "errors": [f"input error: not JSON: {e}"]}
    if not isinstance(request, dict):
        return {"id": None, "valid": False, "errors": ["input error: a line must be a JSON object"]}
    rid = request.get("id")
    if "schema" not in request:
        return {"id": rid, "valid": False, "errors": ["input error: no \"schema\""]}
    schema = request["schema"]
    if not isinstance(schema, (dict, bool)):
        return {"id": rid, "valid": False,
                "errors": [f"schema error: a schema is an object or a boolean, not {type(schema).__name__}"]}
    try:
        valid, errors = validate(schema, request.get("instance"))
    except Exception as e:  # a last guard (RecursionError and the like): never end the run
        valid, errors = False, [f"internal error: {type(e).__name__}: {e}"]
    return {"id": rid, "valid": valid, "errors": errors}


def main():
    # Not codecs' default: JSON is UTF-8 whatever the locale says.
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)
    try:
        for line in stdin:
            if not line.strip():
                continue
            # ASCII out (non-ASCII as \u escapes): valid JSON whatever the locale's encoding.
            sys.stdout.write(json.dumps(handle(line)) + "\n")
            sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: nobody left to tell
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
