#!/usr/bin/env python3
"""Convert a Whisper model in CTranslate2 format (faster-whisper layout) into
whisper.cpp's legacy ggml model file (the `ggml-tiny.en.bin` format).

    python3 scripts/convert_whisper_ct2.py --input DIR --output FILE.bin

DIR must hold `model.bin` (CTranslate2 binary, float16/float32 weights) and
`vocabulary.txt` (one byte-level BPE token per line; `tokenizer.json` is used
if it is missing). Needs only Python 3 + numpy. The output is written to a
temporary file next to FILE.bin and renamed into place when complete.
"""
import argparse, json, os, re, struct, sys, tempfile, time
import numpy as np

GGML_MAGIC = 0x67676D6C
CT2_DTYPES = {0: "<f4", 1: "i1", 2: "<i2", 3: "<i4", 4: "<f2"}  # 5 = bfloat16, handled below


class ConvertError(Exception):
    pass


def read_ct2(path):
    try:
        return _read_ct2(path)
    except (struct.error, ValueError, UnicodeDecodeError) as e:
        raise ConvertError(f"{path}: truncated or corrupt CTranslate2 model file ({e})") from None


def _read_ct2(path):
    """Parse a CTranslate2 model.bin (binary version 5/6) into {name: ndarray}."""
    buf = open(path, "rb").read()
    off = 0

    def take(fmt):
        nonlocal off
        vals = struct.unpack_from("<" + fmt, buf, off)
        off += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def string():
        nonlocal off
        n = take("H")
        s = buf[off:off + n].rstrip(b"\0").decode("utf-8")
        off += n
        return s

    version = take("I")
    if version not in (5, 6):
        raise ConvertError(f"{path}: unsupported CTranslate2 binary version {version} (expected 5 or 6)")
    spec = string()
    if spec != "WhisperSpec":
        raise ConvertError(f"{path}: model spec is '{spec}', expected 'WhisperSpec'")
    take("I")  # spec revision
    variables = {}
    for _ in range(take("I")):
        name = string()
        rank = take("B")
        shape = [take("I") for _ in range(rank)]
        dtype_id, nbytes = take("B"), take("I")
        raw = np.frombuffer(buf, np.uint8, nbytes, off)
        off += nbytes
        if dtype_id == 5:  # bfloat16 -> float32
            arr = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        elif dtype_id in CT2_DTYPES:
            arr = raw.view(CT2_DTYPES[dtype_id])
        else:
            raise ConvertError(f"{path}: variable {name} has unknown dtype id {dtype_id}")
        variables[name] = arr.reshape(shape)
    for _ in range(take("I") if off < len(buf) else 0):  # aliases: alias -> target
        alias, target = string(), string()
        variables[alias] = variables[target]
    return variables


def mel_filters(sr=16000, n_fft=400, n_mels=80):
    """numpy port of librosa.filters.mel(sr, n_fft, n_mels) (Slaney scale + Slaney norm), as used by whisper."""
    f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, np.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp

    def hz_to_mel(f):
        return min_log_mel + np.log(f / min_log_hz) / logstep if f >= min_log_hz else f / f_sp

    mels = np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2.0), n_mels + 2)
    mel_f = np.where(mels >= min_log_mel, min_log_hz * np.exp(logstep * (mels - min_log_mel)), f_sp * mels)
    fftfreqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sr)
    fdiff, ramps = np.diff(mel_f), np.subtract.outer(mel_f, fftfreqs)
    weights = np.zeros((n_mels, len(fftfreqs)), dtype=np.float32)
    for i in range(n_mels):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / fdiff[i], ramps[i + 2] / fdiff[i + 1]))
    weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, np.newaxis]
    return weights + np.float32(0.0)  # -0.0 -> +0.0, bit-identical to whisper's mel_filters.npz


def byte_decoder():
    """Inverse of GPT-2's bytes_to_unicode(): unicode char -> raw byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def load_vocab(indir):
    path = os.path.join(indir, "vocabulary.txt")
    if os.path.isfile(path):
        with open(path, encoding="utf-8", newline="") as f:
            tokens = f.read().split("\n")
        if tokens and tokens[-1] == "":
            tokens.pop()
    else:
        path = os.path.join(indir, "tokenizer.json")
        if not os.path.isfile(path):
            raise ConvertError(f"{indir}: neither vocabulary.txt nor tokenizer.json found")
        vocab = json.load(open(path, encoding="utf-8"))["model"]["vocab"]
        tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    # whisper.cpp takes the byte-level BPE tokens up to and including <|endoftext|>; it
    # synthesises the special tokens (sot, language, timestamps, ...) itself.
    if "<|endoftext|>" not in tokens:
        raise ConvertError(f"{path}: no <|endoftext|> token in vocabulary")
    dec = byte_decoder()
    out = []
    for tok in tokens[:tokens.index("<|endoftext|>")]:
        try:
            out.append(bytes(dec[c] for c in tok))
        except KeyError:
            raise ConvertError(f"{path}: token {tok!r} is not byte-level BPE") from None
    return out + [b"<|endoftext|>"]


def ggml_tensors(v):
    """Yield (whisper.cpp tensor name, ndarray) in whisper.cpp naming."""
    def attn(src, dst, fused):
        w, b = v[src + "/linear_0/weight"], v[src + "/linear_0/bias"]
        parts = ["query", "key", "value"] if fused == 3 else ["query"]
        for name, wp, bp in zip(parts, np.split(w, fused), np.split(b, fused)):
            yield f"{dst}.{name}.weight", wp
            if name != "key":  # whisper has no key bias (CT2 stores zeros)
                yield f"{dst}.{name}.bias", bp
        if fused == 1:  # cross attention: linear_0 = query, linear_1 = fused key/value
            w, b = v[src + "/linear_1/weight"], v[src + "/linear_1/bias"]
            yield f"{dst}.key.weight", np.split(w, 2)[0]
            yield f"{dst}.value.weight", np.split(w, 2)[1]
            yield f"{dst}.value.bias", np.split(b, 2)[1]
        out = src + ("/linear_2" if fused == 1 else "/linear_1")
        yield f"{dst}.out.weight", v[out + "/weight"]
        yield f"{dst}.out.bias", v[out + "/bias"]

    def ln(src, dst):
        yield dst + ".weight", v[src + "/gamma"]
        yield dst + ".bias", v[src + "/beta"]

    def ffn(src, dst):
        yield from ln(src + "/layer_norm", dst + ".mlp_ln")
        for i, j in ((0, 0), (1, 2)):
            yield f"{dst}.mlp.{j}.weight", v[f"{src}/linear_{i}/weight"]
            yield f"{dst}.mlp.{j}.bias", v[f"{src}/linear_{i}/bias"]

    for c in ("conv1", "conv2"):
        yield f"encoder.{c}.weight", v[f"encoder/{c}/weight"]
        yield f"encoder.{c}.bias", v[f"encoder/{c}/bias"].reshape(-1, 1)
    yield "encoder.positional_embedding", v["encoder/position_encodings/encodings"]
    for i in range(n_layers(v, "encoder")):
        s, d = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        yield from ln(s + "/self_attention/layer_norm", d + ".attn_ln")
        yield from attn(s + "/self_attention", d + ".attn", 3)
        yield from ffn(s + "/ffn", d)
    yield from ln("encoder/layer_norm", "encoder.ln_post")
    yield "decoder.token_embedding.weight", v["decoder/embeddings/weight"]
    yield "decoder.positional_embedding", v["decoder/position_encodings/encodings"]
    for i in range(n_layers(v, "decoder")):
        s, d = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        yield from ln(s + "/self_attention/layer_norm", d + ".attn_ln")
        yield from attn(s + "/self_attention", d + ".attn", 3)
        yield from ln(s + "/attention/layer_norm", d + ".cross_attn_ln")
        yield from attn(s + "/attention", d + ".cross_attn", 1)
        yield from ffn(s + "/ffn", d)
    yield from ln("decoder/layer_norm", "decoder.ln")


def n_layers(v, side):
    return len({m.group(1) for k in v for m in [re.match(side + r"/layer_(\d+)/", k)] if m})


def convert(indir, outpath):
    model_bin = os.path.join(indir, "model.bin")
    if not os.path.isfile(model_bin):
        raise ConvertError(f"{indir}: model.bin not found")
    v = read_ct2(model_bin)
    emb, conv1 = v["decoder/embeddings/weight"], v["encoder/conv1/weight"]
    hparams = [
        emb.shape[0],                                       # n_vocab
        v["encoder/position_encodings/encodings"].shape[0],  # n_audio_ctx
        conv1.shape[0],                                     # n_audio_state
        int(v["encoder/num_heads"]), n_layers(v, "encoder"),
        v["decoder/position_encodings/encodings"].shape[0],  # n_text_ctx
        emb.shape[1], int(v["decoder/num_heads"]), n_layers(v, "decoder"),
        conv1.shape[1],                                     # n_mels
        1,                                                  # ftype: mostly f16
    ]
    filters = mel_filters(n_mels=hparams[9])
    vocab = load_vocab(indir)

    outdir = os.path.dirname(os.path.abspath(outpath))
    if not os.path.isdir(outdir):
        raise ConvertError(f"output directory {outdir} does not exist")
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(outpath) + ".", suffix=".tmp", dir=outdir)
    count = 0
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<12i", GGML_MAGIC, *hparams))
            f.write(struct.pack("<2i", *filters.shape) + filters.astype("<f4").tobytes())
            f.write(struct.pack("<i", len(vocab)))
            for tok in vocab:
                f.write(struct.pack("<i", len(tok)) + tok)
            for name, data in ggml_tensors(v):
                if data.dtype.kind != "f":  # e.g. int8-quantized CT2 weights (would need weight_scale)
                    raise ConvertError(f"{name}: {data.dtype} weights not supported (convert the CT2 model with float16/float32)")
                # same rule as whisper.cpp's convert-pt-to-ggml.py (ftype=1)
                f32 = data.ndim < 2 or name in ("encoder.conv1.bias", "encoder.conv2.bias",
                                                "encoder.positional_embedding", "decoder.positional_embedding")
                data = np.ascontiguousarray(data, dtype="<f4" if f32 else "<f2")
                key = name.encode()
                f.write(struct.pack(f"<3i{data.ndim}i", data.ndim, len(key), 0 if f32 else 1, *data.shape[::-1]))
                f.write(key + data.tobytes())
                count += 1
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600
        os.replace(tmp, outpath)
    except BaseException:
        os.unlink(tmp)
        raise
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="CTranslate2 Whisper model directory")
    ap.add_argument("--output", required=True, help="output ggml .bin file")
    args = ap.parse_args()
    t0 = time.time()
    try:
        count = convert(args.input, args.output)
    except KeyError as e:
        sys.exit(f"error: {args.input}: missing CTranslate2 variable {e} (not a Whisper CT2 model?)")
    except (ConvertError, OSError, ValueError, struct.error) as e:
        sys.exit(f"error: {e}")
    size = os.path.getsize(args.output)
    print(f"wrote {args.output}: {count} tensors, {size / 1e6:.1f} MB, {time.time() - t0:.2f} s")


if __name__ == "__main__":
    main()
