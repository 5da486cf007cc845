#!/usr/bin/env python3
"""Checks `runanywhere serve` with the official OpenAI Python client, as a real user would.

Every check runs, whatever failed before it; each prints one line, `ok NAME` or
`FAIL NAME: REASON` (`skip NAME` for the audio checks under --skip-audio), then the script
prints `N passed, N failed, N skipped` and, last, a JSON summary line. The exit status is 1
when any check failed, 0 otherwise.

    PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS python3 scripts/openai_conformance.py \\
        --base-url http://127.0.0.1:PORT/v1 --api-key KEY \\
        --chat-model M --embedding-model E --stt-model S --tts-model T --wav speech.wav

The client is built with max_retries=0: a 5xx or a dropped connection is a failure here,
not something to retry past. /health and /metrics are read at the server's root (the base
URL less its /v1), /health without credentials (as a load balancer's probe would), /metrics
with the bearer key.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Callable

try:
    import httpx
    import jsonschema
    import openai
    from openai import OpenAI
except ImportError as e:  # the tools folder is not on PYTHONPATH
    sys.exit(f"openai_conformance.py: {e} (run with PYTHONPATH=$RUNANYWHERE_PYTHON_TOOLS)")


class CheckFailed(Exception):
    pass


def expect(condition: Any, reason: str) -> None:
    if not condition:
        raise CheckFailed(reason)


def short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class Context:
    args: argparse.Namespace
    client: OpenAI
    http: httpx.Client          # raw calls under the base URL, with the bearer header
    root_url: str               # the server's root: base URL less /v1
    skip: set[str] = field(default_factory=set)

    @property
    def chat_model(self) -> str:
        return self.args.chat_model


# ------------------------------------------------------------------------------- models

def check_models_list(ctx: Context) -> None:
    page = ctx.client.models.list()
    ids = [m.id for m in page.data]
    a = ctx.args
    for wanted in (a.chat_model, a.embedding_model, a.stt_model, a.tts_model):
        if wanted in ctx.skip:
            continue
        expect(wanted in ids, f"{wanted!r} not in models.list(): {short(ids)}")
    for m in page.data:
        expect(m.object == "model", f"model {m.id!r} has object {m.object!r}, want 'model'")


def check_models_retrieve(ctx: Context) -> None:
    model = ctx.client.models.retrieve(ctx.chat_model)
    expect(model.id == ctx.chat_model, f"retrieve({ctx.chat_model!r}).id is {model.id!r}")
    expect(model.object == "model", f"object is {model.object!r}, want 'model'")


# ------------------------------------------------------------------------------- chat

HELLO = [{"role": "user", "content": "Say hello in one short sentence."}]
GREEDY = {"temperature": 0, "seed": 42, "max_tokens": 32}


def expect_usage(usage: Any, where: str) -> None:
    expect(usage is not None, f"{where}: no usage")
    expect(usage.prompt_tokens > 0, f"{where}: usage.prompt_tokens is {usage.prompt_tokens}")
    expect(usage.completion_tokens > 0, f"{where}: usage.completion_tokens is {usage.completion_tokens}")
    expect(usage.total_tokens == usage.prompt_tokens + usage.completion_tokens,
           f"{where}: usage.total_tokens {usage.total_tokens} != "
           f"{usage.prompt_tokens} + {usage.completion_tokens}")


def check_chat_plain(ctx: Context) -> None:
    r = ctx.client.chat.completions.create(model=ctx.chat_model, messages=HELLO,
                                           max_tokens=16, temperature=0)
    expect(r.object == "chat.completion", f"object is {r.object!r}")
    expect(isinstance(r.id, str) and r.id, f"id is {r.id!r}")
    expect(r.model, f"model is {r.model!r}")
    expect(len(r.choices) == 1, f"{len(r.choices)} choices, want 1")
    choice = r.choices[0]
    expect(choice.index == 0, f"choices[0].index is {choice.index}")
    expect(choice.message.role == "assistant", f"message.role is {choice.message.role!r}")
    content = choice.message.content
    expect(isinstance(content, str) and content.strip(), f"content is {short(content)}")
    expect(choice.finish_reason in ("stop", "length"), f"finish_reason is {choice.finish_reason!r}")
    expect_usage(r.usage, "chat")


def check_chat_stream(ctx: Context) -> None:
    reference = ctx.client.chat.completions.create(model=ctx.chat_model, messages=HELLO, **GREEDY)
    stream = ctx.client.chat.completions.create(model=ctx.chat_model, messages=HELLO, stream=True,
                                                stream_options={"include_usage": True}, **GREEDY)
    chunks = list(stream)
    expect(chunks, "no chunks")
    for i, c in enumerate(chunks):
        expect(c.object == "chat.completion.chunk", f"chunk {i}: object is {c.object!r}")
    ids = {c.id for c in chunks}
    expect(len(ids) == 1 and all(ids), f"chunks carry ids {short(ids)}, want one non-empty id")

    last = chunks[-1]
    expect(last.choices == [], f"last chunk has choices {short(last.choices)}, want []")
    expect_usage(last.usage, "last chunk")
    early = [i for i, c in enumerate(chunks[:-1]) if c.usage is not None]
    expect(not early, f"chunks {early[:5]} before the last carry usage (want null)")

    with_choices = [c for c in chunks if c.choices]
    expect(with_choices, "no chunk has choices")
    expect(with_choices[0].choices[0].delta.role == "assistant",
           f"first delta's role is {with_choices[0].choices[0].delta.role!r}")
    finishing = [c.choices[0].finish_reason for c in with_choices if c.choices[0].finish_reason]
    expect(len(finishing) == 1, f"{len(finishing)} chunks have a finish_reason, want 1: {finishing}")
    expect(finishing[0] in ("stop", "length"), f"finish_reason is {finishing[0]!r}")

    text = "".join(c.choices[0].delta.content or "" for c in with_choices)
    expect(text.strip(), "the streamed deltas concatenate to nothing")
    want = reference.choices[0].message.content
    expect(text == want, f"streamed text {short(text)} != non-streamed {short(want)}")
    expect(finishing[0] == reference.choices[0].finish_reason,
           f"streamed finish_reason {finishing[0]!r} != non-streamed {reference.choices[0].finish_reason!r}")
    u, ru = last.usage, reference.usage
    expect((u.prompt_tokens, u.completion_tokens) == (ru.prompt_tokens, ru.completion_tokens),
           f"streamed usage {u.prompt_tokens}+{u.completion_tokens} != "
           f"non-streamed {ru.prompt_tokens}+{ru.completion_tokens}")


PERSON_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


def parsed_json_content(r: Any) -> Any:
    choice = r.choices[0]
    content = choice.message.content
    expect(isinstance(content, str), f"content is {short(content)}")
    try:
        return json.loads(content)
    except json.JSONDecodeError as e:
        raise CheckFailed(f"content is not JSON ({e}; finish_reason {choice.finish_reason!r}): "
                          f"{short(content)}") from None


def check_chat_json_schema(ctx: Context) -> None:
    r = ctx.client.chat.completions.create(
        model=ctx.chat_model, max_tokens=96, temperature=0,
        messages=[{"role": "user", "content": "Describe Alice, who is 30 years old, as a person record."}],
        response_format={"type": "json_schema",
                         "json_schema": {"name": "person", "strict": True, "schema": PERSON_SCHEMA}},
    )
    value = parsed_json_content(r)
    try:
        jsonschema.validate(value, PERSON_SCHEMA)
    except jsonschema.ValidationError as e:
        raise CheckFailed(f"content does not match the schema: {e.message}") from None


def check_chat_json_object(ctx: Context) -> None:
    r = ctx.client.chat.completions.create(
        model=ctx.chat_model, max_tokens=64, temperature=0,
        messages=[{"role": "user", "content": "Reply with a JSON object with a key \"color\" naming a color."}],
        response_format={"type": "json_object"},
    )
    value = parsed_json_content(r)
    expect(isinstance(value, dict), f"content is JSON but not an object: {short(value)}")


WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city's name"}},
            "required": ["city"],
        },
    },
}
FORCE_WEATHER = {"type": "function", "function": {"name": "get_weather"}}
WEATHER_QUESTION = [{"role": "user", "content": "What is the weather like in Paris right now?"}]


def expect_weather_arguments(arguments: Any, where: str) -> None:
    expect(isinstance(arguments, str), f"{where}: arguments is {short(arguments)}, want a JSON string")
    try:
        args = json.loads(arguments)
    except json.JSONDecodeError as e:
        raise CheckFailed(f"{where}: arguments are not JSON ({e}): {short(arguments)}") from None
    expect(isinstance(args, dict), f"{where}: arguments are not an object: {short(args)}")
    expect(isinstance(args.get("city"), str), f"{where}: arguments lack a string 'city': {short(args)}")


def check_chat_tool_call_round_trip(ctx: Context) -> None:
    # One call: with parallel calls allowed a small model goes on inventing calls until the limit.
    r = ctx.client.chat.completions.create(model=ctx.chat_model, messages=WEATHER_QUESTION, max_tokens=64,
                                           temperature=0, tools=[WEATHER_TOOL], tool_choice=FORCE_WEATHER,
                                           parallel_tool_calls=False)
    choice = r.choices[0]
    expect(choice.finish_reason == "tool_calls", f"finish_reason is {choice.finish_reason!r}, want 'tool_calls'")
    calls = choice.message.tool_calls
    expect(calls, f"message.tool_calls is {short(calls)}")
    call = calls[0]
    expect(call.type == "function", f"tool_calls[0].type is {call.type!r}")
    expect(isinstance(call.id, str) and call.id, f"tool_calls[0].id is {call.id!r}")
    expect(call.function.name == "get_weather", f"tool_calls[0].function.name is {call.function.name!r}")
    expect_weather_arguments(call.function.arguments, "tool_calls[0]")

    # The pattern of OpenAI's own examples: append the returned message object as it is
    # (with its null content, refusal, audio and so on), then the tool's result.
    messages = [*WEATHER_QUESTION, choice.message,
                {"role": "tool", "tool_call_id": call.id, "content": "{\"temp_c\": 21}"}]
    answer = ctx.client.chat.completions.create(model=ctx.chat_model, messages=messages, max_tokens=48,
                                                temperature=0, tools=[WEATHER_TOOL])
    final = answer.choices[0]
    expect(final.finish_reason in ("stop", "length"),
           f"answer's finish_reason is {final.finish_reason!r} (tool_calls: {short(final.message.tool_calls)})")
    expect(isinstance(final.message.content, str) and final.message.content.strip(),
           f"answer's content is {short(final.message.content)}")


def check_chat_tool_call_streamed(ctx: Context) -> None:
    stream = ctx.client.chat.completions.create(model=ctx.chat_model, messages=WEATHER_QUESTION, max_tokens=64,
                                                temperature=0, tools=[WEATHER_TOOL], tool_choice=FORCE_WEATHER,
                                                parallel_tool_calls=False, stream=True)
    calls: dict[int, dict[str, Any]] = {}
    finish_reasons = []
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        if choice.finish_reason:
            finish_reasons.append(choice.finish_reason)
        for delta in choice.delta.tool_calls or []:
            if delta.index not in calls:
                expect(delta.id, f"the first delta of tool call {delta.index} has no id")
                expect(delta.function and delta.function.name,
                       f"the first delta of tool call {delta.index} has no function name")
                calls[delta.index] = {"id": delta.id, "name": delta.function.name, "arguments": ""}
            if delta.function and delta.function.arguments:
                calls[delta.index]["arguments"] += delta.function.arguments
                calls[delta.index]["pieces"] = calls[delta.index].get("pieces", 0) + 1
    expect(finish_reasons == ["tool_calls"], f"finish_reasons are {finish_reasons}, want ['tool_calls']")
    expect(calls and calls[0].get("pieces", 0) > 1,
           f"the arguments came in {calls[0].get('pieces', 0) if calls else 0} piece(s), not as the model wrote them")
    expect(sorted(calls) == list(range(len(calls))) and calls, f"tool call indexes are {sorted(calls)}")
    call = calls[0]
    expect(call["name"] == "get_weather", f"tool call 0 is {call['name']!r}")
    expect_weather_arguments(call["arguments"], "streamed tool call 0")


def check_chat_tool_call_cut(ctx: Context) -> None:
    # Parallel calls allowed and few tokens: a second call the limit cuts is dropped, not an
    # error; the complete call comes back, and the reply says it ended on the limit.
    r = ctx.client.chat.completions.create(
        model=ctx.chat_model, max_tokens=60, temperature=0, tools=[WEATHER_TOOL], tool_choice="required",
        messages=[{"role": "user", "content": "What is the weather in Oslo?"}])
    choice = r.choices[0]
    expect(choice.finish_reason in ("tool_calls", "length"), f"finish_reason is {choice.finish_reason!r}")
    calls = choice.message.tool_calls
    expect(calls, f"message.tool_calls is {short(calls)}")
    for index, call in enumerate(calls):
        expect(call.function.name == "get_weather", f"tool_calls[{index}].function.name is {call.function.name!r}")
        expect_weather_arguments(call.function.arguments, f"tool_calls[{index}]")


# ------------------------------------------------------------------------------- completions (legacy)

STORY = "Once upon a time"


def check_completions_plain(ctx: Context) -> None:
    r = ctx.client.completions.create(model=ctx.chat_model, prompt=STORY, max_tokens=16, temperature=0)
    expect(r.object == "text_completion", f"object is {r.object!r}")
    expect(r.id, f"id is {r.id!r}")
    expect(len(r.choices) == 1, f"{len(r.choices)} choices, want 1")
    expect(isinstance(r.choices[0].text, str) and r.choices[0].text.strip(), f"text is {short(r.choices[0].text)}")
    expect(r.choices[0].finish_reason in ("stop", "length"), f"finish_reason is {r.choices[0].finish_reason!r}")
    expect_usage(r.usage, "completion")


def check_completions_stream(ctx: Context) -> None:
    chunks = list(ctx.client.completions.create(model=ctx.chat_model, prompt=STORY, max_tokens=16,
                                                temperature=0, stream=True))
    expect(chunks, "no chunks")
    for i, c in enumerate(chunks):
        expect(c.object == "text_completion", f"chunk {i}: object is {c.object!r}")
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    expect(text.strip(), "the streamed texts concatenate to nothing")
    finishing = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    expect(len(finishing) == 1, f"{len(finishing)} chunks have a finish_reason, want 1: {finishing}")


# ------------------------------------------------------------------------------- embeddings

SENTENCES = ["The cat sits on the mat.", "A quick brown fox.", "Swift runs on Linux."]


def embed_floats(ctx: Context, inputs: Any) -> Any:
    return ctx.client.embeddings.create(model=ctx.args.embedding_model, input=inputs, encoding_format="float")


def expect_embeddings(r: Any, count: int) -> int:
    expect(r.object == "list", f"object is {r.object!r}")
    expect(len(r.data) == count, f"{len(r.data)} embeddings for {count} inputs")
    expect([d.index for d in r.data] == list(range(count)), f"indexes are {[d.index for d in r.data]}")
    for d in r.data:
        expect(d.object == "embedding", f"data[{d.index}].object is {d.object!r}")
        expect(isinstance(d.embedding, list) and all(isinstance(x, float) for x in d.embedding),
               f"data[{d.index}].embedding is not a list of floats: {short(d.embedding)}")
        expect(all(math.isfinite(x) for x in d.embedding), f"data[{d.index}].embedding has NaN or inf")
    dims = {len(d.embedding) for d in r.data}
    expect(len(dims) == 1 and min(dims) > 0, f"dimensions are {sorted(dims)}")
    expect(r.usage is not None and r.usage.prompt_tokens > 0, f"usage is {short(r.usage)}")
    return dims.pop()


def check_embeddings_single(ctx: Context) -> None:
    expect_embeddings(embed_floats(ctx, SENTENCES[0]), 1)


def check_embeddings_batch(ctx: Context) -> None:
    single = expect_embeddings(embed_floats(ctx, SENTENCES[0]), 1)
    batch = expect_embeddings(embed_floats(ctx, SENTENCES), len(SENTENCES))
    expect(single == batch, f"a single input gives {single} dimensions, a batch {batch}")


def decode_base64_floats(value: Any, where: str) -> list[float]:
    expect(isinstance(value, str), f"{where}: embedding is {short(value)}, want a base64 string")
    raw = base64.b64decode(value, validate=True)
    expect(len(raw) % 4 == 0, f"{where}: {len(raw)} bytes is not a whole number of float32s")
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def expect_close(a: list[float], b: list[float], where: str) -> None:
    expect(len(a) == len(b), f"{where}: {len(a)} values against {len(b)}")
    worst = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
    expect(worst <= 1e-6, f"{where}: differs from the float format by up to {worst:g}")


def check_embeddings_base64(ctx: Context) -> None:
    floats = embed_floats(ctx, SENTENCES)
    # Raw HTTP: the client would decode base64 itself.
    response = ctx.http.post("embeddings", json={"model": ctx.args.embedding_model, "input": SENTENCES,
                                                 "encoding_format": "base64"})
    expect(response.status_code == 200, f"POST embeddings (base64) gave {response.status_code}: {short(response.text)}")
    data = response.json().get("data")
    expect(isinstance(data, list) and len(data) == len(SENTENCES), f"data is {short(data)}")
    for item, reference in zip(data, floats.data):
        where = f"base64 data[{item.get('index')}]"
        expect_close(decode_base64_floats(item.get("embedding"), where), reference.embedding, where)
    # The client's own default: it asks for base64 when no format is given, and decodes it.
    default = ctx.client.embeddings.create(model=ctx.args.embedding_model, input=SENTENCES)
    for item, reference in zip(default.data, floats.data):
        expect_close(item.embedding, reference.embedding, f"client-default data[{item.index}]")


# ------------------------------------------------------------------------------- audio

def transcribe(ctx: Context, **kwargs: Any) -> Any:
    with open(ctx.args.wav, "rb") as f:
        return ctx.client.audio.transcriptions.create(model=ctx.args.stt_model, file=f, **kwargs)


def check_transcription_json(ctx: Context) -> None:
    r = transcribe(ctx)
    expect(isinstance(r.text, str) and r.text.strip(), f"text is {short(r.text)}")


def check_transcription_verbose_json(ctx: Context) -> None:
    r = transcribe(ctx, response_format="verbose_json")
    expect(isinstance(r.text, str) and r.text.strip(), f"text is {short(r.text)}")
    segments = r.segments
    expect(segments, f"segments is {short(segments)}")
    for i, s in enumerate(segments):
        expect(isinstance(s.start, (int, float)) and isinstance(s.end, (int, float)),
               f"segment {i}: start {s.start!r}, end {s.end!r}")
        expect(0 <= s.start <= s.end, f"segment {i}: start {s.start} > end {s.end}")


def expect_text_format(r: Any, prefix: str, name: str) -> None:
    expect(isinstance(r, str), f"{name} gave {type(r).__name__}, want str")
    expect(r.startswith(prefix), f"{name} does not start with {prefix!r}: {short(r)}")


def check_transcription_srt(ctx: Context) -> None:
    expect_text_format(transcribe(ctx, response_format="srt"), "1\n", "srt")


def check_transcription_vtt(ctx: Context) -> None:
    expect_text_format(transcribe(ctx, response_format="vtt"), "WEBVTT", "vtt")


def check_transcription_text(ctx: Context) -> None:
    r = transcribe(ctx, response_format="text")
    expect(isinstance(r, str) and r.strip(), f"text gave {short(r)}")
    expect(not r.lstrip().startswith("{"), f"text gave JSON: {short(r)}")


def speak(ctx: Context, response_format: str) -> bytes:
    r = ctx.client.audio.speech.create(model=ctx.args.tts_model, voice=ctx.args.voice,
                                       input="Hello there.", response_format=response_format)
    return r.content


def check_speech_wav(ctx: Context) -> None:
    audio = speak(ctx, "wav")
    expect(audio[:4] == b"RIFF" and audio[8:12] == b"WAVE", f"not a RIFF/WAVE file: {short(audio[:16])}")
    expect(len(audio) > 44, f"{len(audio)} bytes: a header and no samples")


def check_speech_pcm(ctx: Context) -> None:
    audio = speak(ctx, "pcm")
    expect(audio, "no bytes")
    expect(len(audio) % 2 == 0, f"{len(audio)} bytes: odd for 16-bit samples")
    expect(audio[:4] != b"RIFF", "pcm came with a WAV header")


# ------------------------------------------------------------------------------- errors

def expect_error_body(e: openai.APIStatusError, status: int) -> None:
    expect(e.status_code == status, f"status {e.status_code}, want {status}")
    try:
        body = e.response.json()
    except ValueError:
        raise CheckFailed(f"error body is not JSON: {short(e.response.text)}") from None
    error = body.get("error") if isinstance(body, dict) else None
    expect(isinstance(error, dict), f"body has no 'error' object: {short(body)}")
    missing = [k for k in ("message", "type", "param", "code") if k not in error]
    expect(not missing, f"error lacks {missing}: {short(error)}")
    expect(isinstance(error["message"], str) and error["message"], f"error.message is {error['message']!r}")
    expect(isinstance(error["type"], str) and error["type"], f"error.type is {error['type']!r}")


def expect_raises(kind: type[openai.APIStatusError], status: int, call: Callable[[], Any]) -> openai.APIStatusError:
    try:
        result = call()
    except kind as e:
        expect_error_body(e, status)
        return e
    except openai.APIStatusError as e:
        raise CheckFailed(f"{type(e).__name__} ({e.status_code}), want {kind.__name__} ({status}): "
                          f"{short(e.response.text)}") from None
    raise CheckFailed(f"no error, want {kind.__name__} ({status}); got {short(result)}")


def check_error_wrong_api_key(ctx: Context) -> None:
    wrong = OpenAI(base_url=ctx.args.base_url, api_key=ctx.args.api_key + "-wrong", max_retries=0,
                   timeout=ctx.args.timeout)
    expect_raises(openai.AuthenticationError, 401, lambda: wrong.models.list())


def check_error_unknown_model(ctx: Context) -> None:
    e = expect_raises(openai.NotFoundError, 404, lambda: ctx.client.chat.completions.create(
        model="no-such-model", messages=HELLO, max_tokens=4))
    expect(e.code, f"error.code is {e.code!r}, want a code such as 'model_not_found'")


def check_error_wrong_model_kind(ctx: Context) -> None:
    expect_raises(openai.BadRequestError, 400, lambda: ctx.client.chat.completions.create(
        model=ctx.args.embedding_model, messages=HELLO, max_tokens=4))


def check_error_negative_max_tokens(ctx: Context) -> None:
    expect_raises(openai.BadRequestError, 400, lambda: ctx.client.chat.completions.create(
        model=ctx.chat_model, messages=HELLO, max_tokens=-1))


# ------------------------------------------------------------------------------- raw HTTP

def check_sse_curl(ctx: Context) -> None:
    body = json.dumps({"model": ctx.chat_model, "messages": [{"role": "user", "content": "Hi"}],
                       "stream": True, "max_tokens": 8})
    url = ctx.args.base_url.rstrip("/") + "/chat/completions"
    with tempfile.NamedTemporaryFile("r", suffix=".headers") as headers:
        run = subprocess.run(
            ["curl", "-sN", "--max-time", str(int(ctx.args.timeout)), "-D", headers.name,
             "-H", f"Authorization: Bearer {ctx.args.api_key}", "-H", "Content-Type: application/json",
             "-d", body, url],
            capture_output=True, text=True, timeout=ctx.args.timeout + 10)
        head = headers.read()
    expect(run.returncode == 0, f"curl exited {run.returncode}: {run.stderr.strip()}")
    status_line = head.splitlines()[0] if head else ""
    expect(" 200" in status_line, f"status line {status_line!r}")
    content_type = next((line.split(":", 1)[1].strip() for line in head.splitlines()
                         if line.lower().startswith("content-type:")), "")
    expect(content_type.startswith("text/event-stream"), f"Content-Type is {content_type!r}")
    lines = [line.rstrip("\r") for line in run.stdout.split("\n")]
    lines = [line for line in lines if line]
    expect(lines, "empty body")
    bad = [line for line in lines if not line.startswith("data: ")]
    expect(not bad, f"lines not starting with 'data: ': {short(bad)}")
    expect(lines[-1] == "data: [DONE]", f"last line is {short(lines[-1])}, want 'data: [DONE]'")
    expect(len(lines) >= 2, "no event before [DONE]")
    for line in lines[:-1]:
        try:
            json.loads(line[len("data: "):])
        except json.JSONDecodeError:
            raise CheckFailed(f"not JSON: {short(line)}") from None


def check_health(ctx: Context) -> None:
    r = httpx.get(ctx.root_url + "/health", timeout=ctx.args.timeout)
    expect(r.status_code == 200, f"GET /health (no credentials) gave {r.status_code}: {short(r.text)}")


def check_metrics(ctx: Context) -> None:
    r = httpx.get(ctx.root_url + "/metrics", timeout=ctx.args.timeout,
                  headers={"Authorization": f"Bearer {ctx.args.api_key}"})
    expect(r.status_code == 200, f"GET /metrics gave {r.status_code}: {short(r.text)}")
    expect("# TYPE" in r.text, f"no '# TYPE' line: {short(r.text)}")


# ------------------------------------------------------------------------------- runner

CHECKS: list[tuple[str, Callable[[Context], None], bool]] = [  # (name, check, needs audio)
    ("models.list", check_models_list, False),
    ("models.retrieve", check_models_retrieve, False),
    ("chat.plain", check_chat_plain, False),
    ("chat.stream", check_chat_stream, False),
    ("chat.json_schema", check_chat_json_schema, False),
    ("chat.json_object", check_chat_json_object, False),
    ("chat.tool_call_round_trip", check_chat_tool_call_round_trip, False),
    ("chat.tool_call_streamed", check_chat_tool_call_streamed, False),
    ("chat.tool_call_cut", check_chat_tool_call_cut, False),
    ("completions.plain", check_completions_plain, False),
    ("completions.stream", check_completions_stream, False),
    ("embeddings.single", check_embeddings_single, False),
    ("embeddings.batch", check_embeddings_batch, False),
    ("embeddings.base64", check_embeddings_base64, False),
    ("transcriptions.json", check_transcription_json, True),
    ("transcriptions.verbose_json", check_transcription_verbose_json, True),
    ("transcriptions.srt", check_transcription_srt, True),
    ("transcriptions.vtt", check_transcription_vtt, True),
    ("transcriptions.text", check_transcription_text, True),
    ("speech.wav", check_speech_wav, True),
    ("speech.pcm", check_speech_pcm, True),
    ("errors.wrong_api_key", check_error_wrong_api_key, False),
    ("errors.unknown_model", check_error_unknown_model, False),
    ("errors.wrong_model_kind", check_error_wrong_model_kind, False),
    ("errors.negative_max_tokens", check_error_negative_max_tokens, False),
    ("sse.curl", check_sse_curl, False),
    ("health", check_health, False),
    ("metrics", check_metrics, False),
]


def reason_for(e: Exception) -> str:
    if isinstance(e, CheckFailed):
        return str(e)
    if isinstance(e, openai.APIStatusError):
        return f"{type(e).__name__} ({e.status_code}): {short(e.response.text, 300)}"
    return f"{type(e).__name__}: {e}"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--api-key", required=True)
    p.add_argument("--chat-model", required=True)
    p.add_argument("--embedding-model", required=True)
    p.add_argument("--stt-model", required=True)
    p.add_argument("--tts-model", required=True)
    p.add_argument("--wav", help="speech to transcribe (needed unless --skip-audio)")
    p.add_argument("--voice", default="default", help="voice for audio.speech (default: %(default)s)")
    p.add_argument("--skip-audio", action="store_true", help="skip the transcription and speech checks")
    p.add_argument("--only", action="append", default=[], metavar="PREFIX",
                   help="run only the checks whose name starts with PREFIX (repeatable)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per request (default: %(default)s)")
    args = p.parse_args(argv)
    if not args.skip_audio and not args.wav:
        p.error("--wav is required unless --skip-audio")
    if args.wav and not args.skip_audio and not os.path.isfile(args.wav):
        p.error(f"--wav {args.wav}: no such file")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    base = args.base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    client = OpenAI(base_url=base, api_key=args.api_key, max_retries=0, timeout=args.timeout)
    http = httpx.Client(base_url=base + "/", timeout=args.timeout,
                        headers={"Authorization": f"Bearer {args.api_key}"})
    ctx = Context(args=args, client=client, http=http, root_url=root,
                  skip={args.stt_model, args.tts_model} if args.skip_audio else set())

    passed, failed, skipped = [], [], []
    seconds: dict[str, float] = {}
    started = time.monotonic()
    for name, check, needs_audio in CHECKS:
        if args.only and not any(name.startswith(prefix) for prefix in args.only):
            continue
        if needs_audio and args.skip_audio:
            skipped.append(name)
            print(f"skip {name}", flush=True)
            continue
        t0 = time.monotonic()
        try:
            check(ctx)
        except Exception as e:  # every check runs, whatever the one before did
            failed.append(name)
            print(f"FAIL {name}: {reason_for(e)}", flush=True)
        else:
            passed.append(name)
            print(f"ok {name}", flush=True)
        seconds[name] = round(time.monotonic() - t0, 2)
    http.close()

    print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    print(json.dumps({"passed": len(passed), "failed": len(failed), "skipped": len(skipped),
                      "failures": failed, "seconds": round(time.monotonic() - started, 1),
                      "check_seconds": seconds, "openai": openai.__version__}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
