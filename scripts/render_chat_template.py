#!/usr/bin/env python3
"""Renders chat templates the way Hugging Face transformers' apply_chat_template does.

The reference for RunAnywhere's ChatTemplate tests. transformers compiles a template in a
sandboxed Jinja2 environment of its own (chat_template_utils.py) and renders it with the
conversation's variables; this script builds the same environment and renders each case with
exactly the variables the case gives, so a test compares engines, not variable lists:

- ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks;
- the loopcontrols extension ({% break %}, {% continue %}) and a {% generation %} block that
  renders its body (transformers uses it only to mark assistant tokens);
- tojson without HTML escaping, ensure_ascii off, and Python's json.dumps options;
- the globals raise_exception and strftime_now.

Input (stdin, JSON): {"cases": [{"id": str, "template": str, "variables": {...}}]}.
Output (stdout, JSON): {"results": [{"id": str, "text": str} or {"id": str, "error": str}]}.
"""
import argparse
import json
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationBlock(Extension):
    """{% generation %}...{% endgeneration %}: the body, unchanged."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(format):
    return datetime.now().strftime(format)


def environment():
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlock, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    cases = json.load(sys.stdin)["cases"]
    env = environment()
    compiled = {}
    results = []
    for case in cases:
        try:
            source = case["template"]
            if source not in compiled:
                compiled[source] = env.from_string(source)
            text = compiled[source].render(**case["variables"])
            results.append({"id": case["id"], "text": text})
        except Exception as error:  # a template's own raise_exception included
            results.append({"id": case["id"], "error": f"{type(error).__name__}: {error}"})
    json.dump({"results": results}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
