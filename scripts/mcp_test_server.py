#!/usr/bin/env python3
"""A small MCP server over stdio, for the SDK's MCP client tests.

Tools, each with a real input schema and real behaviour:
  add(a: int, b: int) -> int              the sum
  reverse_text(text: str) -> str          the text reversed (by Unicode code point)
  lookup_capital(country: str) -> str     from a built-in table; an unknown country is an
                                          error result (isError: true), not a crash
  slow_echo(text: str, seconds: float)    sleeps, then returns the text: for client timeouts

Built with the `mcp` package's FastMCP (pinned in scripts/env.sh). It speaks JSON-RPC on
stdin/stdout and logs only warnings, to stderr. It exits when stdin closes.

    PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS python3 scripts/mcp_test_server.py
"""

import asyncio
import sys
from typing import Annotated

try:
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError
    from pydantic import Field
except ImportError as e:  # the tools folder is not on PYTHONPATH
    sys.exit(f"mcp_test_server.py: {e} (run with PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS)")

CAPITALS = {
    "france": "Paris",
    "germany": "Berlin",
    "italy": "Rome",
    "spain": "Madrid",
    "japan": "Tokyo",
    "canada": "Ottawa",
    "australia": "Canberra",
    "brazil": "Brasília",
    "india": "New Delhi",
    "united states": "Washington, D.C.",
}

MAX_SLEEP_SECONDS = 300

server = FastMCP(
    "runanywhere-test-server",
    instructions="Test tools for the RunAnywhere SDK's MCP client: arithmetic, text, a lookup table, a slow echo.",
    log_level="WARNING",
)


@server.tool()
def add(
    a: Annotated[int, Field(description="The first addend")],
    b: Annotated[int, Field(description="The second addend")],
) -> int:
    """Adds two integers and returns their sum."""
    return a + b


@server.tool()
def reverse_text(text: Annotated[str, Field(description="The text to reverse")]) -> str:
    """Returns the text with its characters in reverse order."""
    return text[::-1]


@server.tool()
def lookup_capital(country: Annotated[str, Field(description="A country's English name, e.g. France")]) -> str:
    """Returns the capital city of a country from a small built-in table."""
    capital = CAPITALS.get(" ".join(country.split()).casefold())
    if capital is None:
        raise ToolError(f"unknown country: {country!r}")
    return capital


@server.tool()
async def slow_echo(
    text: Annotated[str, Field(description="The text to send back")],
    seconds: Annotated[float, Field(description="How long to wait before answering", ge=0, le=MAX_SLEEP_SECONDS)],
) -> str:
    """Waits the given number of seconds, then returns the text unchanged."""
    await asyncio.sleep(seconds)
    return text


if __name__ == "__main__":
    server.run(transport="stdio")
