#!/usr/bin/env python3
"""Prepare a Piper voice for sherpa-onnx (>= 2.0).

    python3 scripts/prepare_piper_voice.py --onnx X.onnx --config X.onnx.json --output-dir DIR

writes DIR/<name>.onnx (the model with the metadata sherpa-onnx reads) and DIR/tokens.txt
(the voice's phoneme_id_map as "<symbol> <id>" lines). Both are written into a temporary
directory first and renamed into place at the end, so DIR never holds half a voice.

What sherpa-onnx 2.0.1 needs, and why:

  metadata   read by OfflineTtsVitsModel when the model loads. "sample_rate", "n_speakers",
             "language" and "comment" are mandatory: a missing or empty one makes sherpa
             log "'<key>' does not exist in the metadata" and exit the whole process.
             "comment" must contain "piper" (it selects Piper's input layout and the
             phoneme_codepoints tokenizer). "voice" is the espeak-ng voice, informational in
             2.x. "add_blank" is deliberately not set: for phoneme_codepoints input sherpa
             already interleaves the pad symbol (^ _ p1 _ p2 _ ... $), as Piper was trained.
  tokens.txt one "<symbol> <id>" line per symbol. The space symbol is written as a literal
             space, so its line starts with a space (" 3"): sherpa reads a line with a
             single field as the id of " ". Every symbol must be exactly one code point, and
             "_", "^", "$" must exist (sherpa looks them up unconditionally and crashes when
             one is missing). ASCII whitespace other than the space cannot be represented
             in this format and is left out (sherpa never receives such a phoneme anyway).

Requires the `onnx` package (tested with onnx 1.23.2). Exit status 0 with a one-line
summary on success; 1 with a one-line "error: ..." on stderr otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

PIPER_INPUTS = ("input", "input_lengths", "scales")
REQUIRED_SYMBOLS = ("_", "^", "$")
UNREPRESENTABLE = set("\t\n\v\f\r")


class PrepareError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, like every other failure here
        self.exit(1, f"error: {message} (see --help)\n")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = _Parser(
        description="Add sherpa-onnx metadata to a Piper voice and write its tokens.txt.")
    p.add_argument("--onnx", required=True, type=Path, help="Piper model (X.onnx)")
    p.add_argument("--config", required=True, type=Path, help="Piper config (X.onnx.json)")
    p.add_argument("--output-dir", required=True, type=Path,
                   help="directory that receives <name>.onnx and tokens.txt")
    return p.parse_args(argv)


def load_config(path: Path) -> dict:
    if not path.is_file():
        raise PrepareError(f"config not found: {path}")
    try:
        with path.open("r", encoding="utf-8") as f:
            cfg = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PrepareError(f"cannot read {path} as JSON: {e}") from None
    if not isinstance(cfg, dict):
        raise PrepareError(f"{path}: top level is not a JSON object")
    return cfg


def metadata_from_config(cfg: dict, path: Path) -> dict[str, str]:
    audio = cfg.get("audio") or {}
    sample_rate = audio.get("sample_rate")
    if not isinstance(sample_rate, int) or isinstance(sample_rate, bool) or sample_rate <= 0:
        raise PrepareError(f"{path}: audio.sample_rate missing or not a positive integer")

    num_speakers = cfg.get("num_speakers", 1)
    if not isinstance(num_speakers, int) or isinstance(num_speakers, bool) or num_speakers < 1:
        raise PrepareError(f"{path}: num_speakers is not a positive integer")

    espeak_voice = str((cfg.get("espeak") or {}).get("voice") or "").strip()
    phoneme_type = str(cfg.get("phoneme_type") or "espeak")
    if phoneme_type == "espeak" and not espeak_voice:
        raise PrepareError(f"{path}: espeak.voice missing (needed to phonemize this voice)")

    lang = cfg.get("language") or {}
    language = ""
    if isinstance(lang, dict):
        language = str(lang.get("name_english") or lang.get("code") or "").strip()
    elif isinstance(lang, str):
        language = lang.strip()
    # sherpa exits the process when "language" is empty; fall back to the espeak voice.
    language = language or espeak_voice or "unknown"

    return {
        "model_type": "vits",
        "comment": "piper",
        "language": language,
        "voice": espeak_voice,
        "has_espeak": "1" if phoneme_type == "espeak" else "0",
        "n_speakers": str(num_speakers),
        "sample_rate": str(sample_rate),
    }


def tokens_from_config(cfg: dict, path: Path) -> tuple[list[tuple[str, int]], int]:
    id_map = cfg.get("phoneme_id_map")
    if not isinstance(id_map, dict) or not id_map:
        raise PrepareError(f"{path}: phoneme_id_map missing or empty")
    num_symbols = cfg.get("num_symbols")

    tokens: list[tuple[str, int]] = []
    skipped = 0
    for symbol, ids in id_map.items():
        if len(symbol) != 1:
            raise PrepareError(
                f"{path}: phoneme_id_map symbol {symbol!r} is not a single code point")
        if (not isinstance(ids, list) or len(ids) != 1 or not isinstance(ids[0], int)
                or isinstance(ids[0], bool) or ids[0] < 0):
            raise PrepareError(
                f"{path}: phoneme_id_map[{symbol!r}] must be a list with one non-negative id, "
                f"got {ids!r}")
        if isinstance(num_symbols, int) and ids[0] >= num_symbols:
            raise PrepareError(
                f"{path}: phoneme_id_map[{symbol!r}] = {ids[0]} is >= num_symbols {num_symbols}")
        if symbol in UNREPRESENTABLE:
            skipped += 1
            continue
        tokens.append((symbol, ids[0]))

    present = {s for s, _ in tokens}
    missing = [s for s in REQUIRED_SYMBOLS if s not in present]
    if missing:
        raise PrepareError(
            f"{path}: phoneme_id_map lacks {' '.join(repr(s) for s in missing)} "
            f"(pad/bos/eos, required by sherpa-onnx)")
    tokens.sort(key=lambda t: (t[1], t[0]))
    return tokens, skipped


def load_model(path: Path):
    try:
        import onnx  # noqa: PLC0415 - imported late so argument errors need no onnx
    except ImportError:
        raise PrepareError("the Python package 'onnx' is not installed "
                           "(pip install onnx==1.23.2)") from None
    if not path.is_file():
        raise PrepareError(f"model not found: {path}")
    try:
        model = onnx.load(str(path))
    except Exception as e:  # onnx raises DecodeError, ValueError, ... for bad files
        raise PrepareError(f"cannot load {path} as an ONNX model: {e}") from None
    inputs = [i.name for i in model.graph.input]
    if tuple(inputs[:3]) != PIPER_INPUTS:
        raise PrepareError(
            f"{path}: inputs are {inputs}, expected a Piper VITS model "
            f"({', '.join(PIPER_INPUTS)}[, sid])")
    return onnx, model


def set_metadata(model, meta: dict[str, str]) -> None:
    existing = {p.key: p for p in model.metadata_props}
    for key, value in meta.items():
        if key in existing:
            existing[key].value = value
        else:
            prop = model.metadata_props.add()
            prop.key = key
            prop.value = value


def write_outputs(onnx, model, tokens: list[tuple[str, int]], out_dir: Path, name: str) -> None:
    """Write <name>.onnx and tokens.txt into a temp dir, then rename them into out_dir."""
    out_dir = out_dir.resolve()
    parent = out_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    fresh = not out_dir.exists()
    if not fresh and not out_dir.is_dir():
        raise PrepareError(f"output path exists and is not a directory: {out_dir}")

    # Same filesystem as the destination, so the final renames are atomic.
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=parent if fresh else out_dir))
    try:
        if fresh:  # mkdtemp makes it 0700; the final directory gets the usual umask mode
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o777 & ~umask)
        model_tmp = tmp / f"{name}.onnx"
        onnx.save(model, str(model_tmp))
        with (tmp / "tokens.txt").open("w", encoding="utf-8", newline="\n") as f:
            for symbol, token_id in tokens:
                f.write(f"{symbol} {token_id}\n")
            f.flush()
            os.fsync(f.fileno())
        with model_tmp.open("rb") as f:
            os.fsync(f.fileno())

        if fresh:
            os.rename(tmp, out_dir)  # the directory appears complete or not at all
            tmp = None
        else:
            os.replace(model_tmp, out_dir / f"{name}.onnx")
            os.replace(tmp / "tokens.txt", out_dir / "tokens.txt")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        name = args.onnx.name
        if not name.endswith(".onnx") or len(name) == len(".onnx"):
            raise PrepareError(f"--onnx must name a .onnx file, got {args.onnx}")
        name = name[: -len(".onnx")]
        target = args.output_dir.resolve() / f"{name}.onnx"
        if args.onnx.exists() and target.exists() and os.path.samefile(args.onnx, target):
            raise PrepareError(f"output would overwrite the input model {args.onnx}; "
                               f"choose another --output-dir")

        cfg = load_config(args.config)
        meta = metadata_from_config(cfg, args.config)
        tokens, skipped = tokens_from_config(cfg, args.config)
        onnx, model = load_model(args.onnx)
        set_metadata(model, meta)
        write_outputs(onnx, model, tokens, args.output_dir, name)
    except PrepareError as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.strerror or e}: {e.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1

    note = f", skipped {skipped} whitespace symbol(s)" if skipped else ""
    out = args.output_dir.resolve()
    print(f"prepared {name}: {out / (name + '.onnx')} + {out / 'tokens.txt'} "
          f"({len(tokens)} tokens{note}; sample_rate={meta['sample_rate']}, "
          f"n_speakers={meta['n_speakers']}, voice={meta['voice'] or '-'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
