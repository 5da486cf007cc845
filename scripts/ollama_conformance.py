#!/usr/bin/env python3
"""Checks `runanywhere serve`'s Ollama API with the official `ollama` Python client.

Every check runs, whatever failed before it; each prints `ok NAME` or `FAIL NAME: REASON`,
then the script prints `N passed, N failed` and, last, a JSON summary line. The exit status
is 1 when any check failed.

    PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS python3 scripts/ollama_conformance.py \\
        --host http://127.0.0.1:PORT --api-key KEY --chat-model M --embedding-model E \\
        --pull hf.co/ORG/REPO:QUANT --pulled-id ID

The key goes as the client sends it, from OLLAMA_API_KEY (a bearer token).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from typing import Any, Callable

try:
    import httpx
    import jsonschema
    import ollama
except ImportError as e:  # the tools folder is not on PYTHONPATH
    sys.exit(f"ollama_conformance.py: {e} (run with PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS)")


class CheckFailed(Exception):
    pass


def expect(condition: Any, reason: str) -> None:
    if not condition:
        raise CheckFailed(reason)


def short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--api-key", required=True)
    parser.add_argument("--chat-model", required=True)
    parser.add_argument("--embedding-model", required=True)
    parser.add_argument("--pull", required=True, help="a reference the server can resolve")
    parser.add_argument("--pulled-id", required=True, help="the id the reference registers")
    args = parser.parse_args()
    os.environ["OLLAMA_API_KEY"] = args.api_key
    client = ollama.Client(host=args.host, timeout=300)
    raw = httpx.Client(base_url=args.host, timeout=300, headers={"Authorization": f"Bearer {args.api_key}"})
    chat_model = args.chat_model
    greedy = {"temperature": 0, "num_predict": 24, "seed": 7}
    results: list[tuple[str, str | None]] = []

    def check(name: str, body: Callable[[], None]) -> None:
        try:
            body()
            results.append((name, None))
            print(f"ok {name}", flush=True)
        except Exception as e:  # every failure is reported, and the next check runs
            reason = f"{type(e).__name__}: {e}"
            results.append((name, reason))
            print(f"FAIL {name}: {short(reason, 400)}", flush=True)

    def version() -> None:
        answer = raw.get("/api/version")
        expect(answer.status_code == 200 and "version" in answer.json(), short(answer.text))

    def tags() -> None:
        names = [m.model for m in client.list().models]
        expect(chat_model in names and args.embedding_model in names, short(names))
        entry = next(m for m in client.list().models if m.model == chat_model)
        expect(entry.size and entry.size > 0 and entry.details and entry.details.format == "gguf", short(entry))
        expect(isinstance(entry.modified_at, datetime.datetime), short(entry.modified_at))

    def show() -> None:
        shown = client.show(chat_model)
        expect(shown.details.family == "llama", short(shown.details))
        expect(shown.details.quantization_level, short(shown.details))
        expect(shown.template and "im_start" in shown.template, short(shown.template))
        expect(shown.modelinfo.get("general.architecture") == "llama", short(shown.modelinfo))
        expect("completion" in shown.capabilities, short(shown.capabilities))

    chat_text: dict[str, str] = {}

    def chat() -> None:
        answer = client.chat(chat_model, messages=[{"role": "user", "content": "Say hello."}], options=greedy, stream=False)
        expect(answer.done and answer.message.role == "assistant", short(answer))
        expect(answer.message.content, short(answer))
        expect(answer.eval_count and answer.eval_count > 0 and answer.prompt_eval_count > 0, short(answer))
        expect(answer.total_duration and answer.total_duration >= answer.eval_duration, short(answer))
        expect(answer.done_reason in ("stop", "length"), short(answer.done_reason))
        chat_text["whole"] = answer.message.content

    def chat_stream() -> None:
        parts = list(client.chat(chat_model, messages=[{"role": "user", "content": "Say hello."}], options=greedy, stream=True))
        expect(len(parts) >= 3, f"{len(parts)} parts")
        expect(all(not p.done for p in parts[:-1]) and parts[-1].done, short(parts[-1]))
        text = "".join(p.message.content or "" for p in parts)
        expect(text, "no text streamed")
        expect(parts[-1].eval_count and parts[-1].eval_count > 0, short(parts[-1]))

    def generate() -> None:
        answer = client.generate(chat_model, prompt="The capital of France is", options=greedy, stream=False)
        expect(answer.done and answer.response, short(answer))
        parts = list(client.generate(chat_model, prompt="The capital of France is", options=greedy, stream=True))
        expect(parts[-1].done and "".join(p.response for p in parts), short(parts[-1]))
        rawly = client.generate(chat_model, prompt="1, 2, 3,", raw=True, options=greedy, stream=False)
        expect(rawly.done and rawly.response, short(rawly))

    def json_format() -> None:
        answer = client.chat(
            chat_model,
            messages=[{"role": "user", "content": "Give a JSON object describing a cat."}],
            format="json",
            options={"temperature": 0, "num_predict": 80},
        )
        expect(isinstance(json.loads(answer.message.content), dict), short(answer.message.content))

    def schema_format() -> None:
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"}},
            "required": ["name", "age"],
        }
        answer = client.chat(
            chat_model,
            messages=[{"role": "user", "content": "Invent a person."}],
            format=schema,
            options={"temperature": 0, "num_predict": 80},
            stream=False,
        )
        jsonschema.validate(json.loads(answer.message.content), schema)

    def tools() -> None:
        answer = client.chat(
            chat_model,
            messages=[{"role": "user", "content": "What is the weather in Oslo?"}],
            tools=[WEATHER],
            options={"temperature": 0, "num_predict": 80},
        )
        calls = answer.message.tool_calls or []
        expect(calls or answer.message.content, short(answer.message))
        for call in calls:
            expect(call.function.name == "get_weather" and isinstance(call.function.arguments, dict), short(call))
        # A tool's result goes back, and the model answers in words.
        follow = client.chat(
            chat_model,
            messages=[
                {"role": "user", "content": "What is the weather in Oslo?"},
                {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
                {"role": "tool", "content": '{"temperature_c": 18, "sky": "cloudy"}', "tool_name": "get_weather"},
            ],
            tools=[WEATHER],
            options={"temperature": 0, "num_predict": 40},
        )
        expect(follow.done and (follow.message.content or follow.message.tool_calls), short(follow.message))

    def think() -> None:
        for choice in (False, True):
            answer = client.chat(
                chat_model, messages=[{"role": "user", "content": "Hi"}], think=choice, options=greedy, stream=False
            )
            expect(answer.done and answer.message.content is not None, short(answer))

    def embed() -> None:
        answer = client.embed(args.embedding_model, input=["a cat sat", "the stock market"])
        expect(len(answer.embeddings) == 2 and len(answer.embeddings[0]) == len(answer.embeddings[1]) > 10, short(answer))
        single = client.embed(args.embedding_model, input="one text")
        expect(len(single.embeddings) == 1, short(single))

    def keep_alive() -> None:
        loaded = client.generate(chat_model, prompt="", keep_alive="10m")
        expect(loaded.done and loaded.done_reason == "load", short(loaded))
        running = {m.model: m for m in client.ps().models}
        expect(chat_model in running, short(running))
        left = running[chat_model].expires_at - datetime.datetime.now(datetime.timezone.utc)
        expect(datetime.timedelta(minutes=8) < left < datetime.timedelta(minutes=11), f"expires in {left}")
        gone = client.generate(chat_model, prompt="", keep_alive=0)
        expect(gone.done_reason == "unload", short(gone))
        expect(chat_model not in [m.model for m in client.ps().models], short(client.ps()))
        client.chat(chat_model, messages=[{"role": "user", "content": "Hi"}], options=greedy, keep_alive=0)
        expect(chat_model not in [m.model for m in client.ps().models], "keep_alive 0 unloads after the answer")
        client.generate(chat_model, prompt="", keep_alive=-1)
        forever = {m.model: m for m in client.ps().models}[chat_model]
        expect(forever.expires_at.year > 2100, short(forever.expires_at))

    def pull() -> None:
        statuses = [p.status for p in client.pull(args.pull, stream=True)]
        expect(statuses[0] == "pulling manifest" and statuses[-1] == "success", short(statuses))
        expect(any((s or "").startswith("pulling ") and s != "pulling manifest" for s in statuses), short(statuses))
        expect(args.pulled_id in [m.model for m in client.list().models], short(client.list()))
        again = client.pull(args.pull, stream=False)
        expect(again.status == "success", short(again))
        answer = client.chat(args.pulled_id, messages=[{"role": "user", "content": "Hi"}], options=greedy)
        expect(answer.done and answer.message.content, short(answer))

    def copy_delete() -> None:
        expect(client.copy(chat_model, "copied-llm").status == "success", "copy")
        expect("copied-llm" in [m.model for m in client.list().models], short(client.list()))
        expect(client.delete("copied-llm").status == "success", "delete")
        expect("copied-llm" not in [m.model for m in client.list().models], short(client.list()))

    def errors() -> None:
        try:
            client.chat("no-such-model", messages=[{"role": "user", "content": "Hi"}])
            raise CheckFailed("an unknown model answered")
        except ollama.ResponseError as e:
            expect(e.status_code == 404 and "no-such-model" in str(e.error), f"{e.status_code} {e.error}")
        try:
            client.show("no-such-model")
            raise CheckFailed("an unknown model was shown")
        except ollama.ResponseError as e:
            expect(e.status_code == 404, f"{e.status_code}")
        bad = raw.post("/api/chat", content=b"{not json", headers={"Content-Type": "application/json"})
        expect(bad.status_code == 400 and "error" in bad.json(), short(bad.text))
        wrong = raw.post("/api/chat", json={"model": chat_model, "messages": [{"role": "wizard", "content": "x"}]})
        expect(wrong.status_code == 400 and isinstance(wrong.json().get("error"), str), short(wrong.text))
        anonymous = httpx.get(args.host + "/api/tags")
        expect(anonymous.status_code == 401 and "error" in anonymous.json(), short(anonymous.text))

    for name, body in [
        ("version", version), ("tags", tags), ("show", show), ("chat", chat), ("chat_stream", chat_stream),
        ("generate", generate), ("json_format", json_format), ("schema_format", schema_format), ("tools", tools),
        ("think", think), ("embed", embed), ("keep_alive", keep_alive), ("pull", pull),
        ("copy_delete", copy_delete), ("errors", errors),
    ]:
        check(name, body)

    failed = [name for name, reason in results if reason]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    print(json.dumps({"passed": len(results) - len(failed), "failed": len(failed), "failures": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
