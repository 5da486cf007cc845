#!/usr/bin/env python3
"""Convert Resemblyzer's speaker encoder (the GE2E `VoiceEncoder` shipped as `pretrained.pt`
in the PyPI package `Resemblyzer==0.1.4`) into an F32 GGUF file that our Swift code runs.

    python3 scripts/convert_resemblyzer_gguf.py --input DIR --output FILE.gguf

DIR is a folder at or above `pretrained.pt` (e.g. a `pip install --no-deps --target`
folder): the one `pretrained.pt` below it is used. Needs numpy and the `gguf` package only:
the checkpoint is read without torch. `pretrained.pt` is in torch's *legacy* format (a
stream of pickles: magic, protocol 1001, sys info, the object, the storage keys, then each
storage as an int64 element count and raw little-endian data), not the zip format of
torch >= 1.6; both are read here. Tensors are rebuilt from (storage, offset, size, stride).

The model (resemblyzer/voice_encoder.py): nn.LSTM(40, 256, 3 layers, batch_first) over
mel frames; the last layer's final hidden state h → ReLU(linear(h)) → divided by its L2
norm. The checkpoint's `similarity_weight`/`similarity_bias` (GE2E training loss) and its
optimizer state are not written.

GGUF metadata (general.architecture = "resemblyzer", general.name, general.file_type = 0
(all F32); P = "resemblyzer."):

    P+training_step            u32  the checkpoint's step (1564501), for the record

    P+sample_rate              u32  16000
    P+mel.n_fft                u32  400   (25 ms)
    P+mel.hop_length           u32  160   (10 ms)
    P+mel.win_length           u32  400   (periodic Hann, zero-padded to n_fft: none here)
    P+mel.window               str  "hann"  (periodic: 0.5 - 0.5 cos(2 pi n / 400), n = 0..399)
    P+mel.center               bool true  (n_fft/2 = 200 samples each side before framing)
    P+mel.pad_mode             str  "constant"  (zeros: librosa >= 0.9's default, not reflect)
    P+mel.power                f32  2.0   (|STFT|^2)
    P+mel.n_mels               u32  40
    P+mel.fmin, P+mel.fmax     f32  0, 8000
    P+mel.log                  bool false (the encoder takes mel power, no log)
    P+mel.scale, P+mel.norm    str  "slaney", "slaney" (librosa.filters.mel defaults)
    P+audio.target_dbfs        f32  -30   (volume normalization, increase only)
    P+audio.increase_only      bool true
    P+vad.window_ms            u32  30    (silence trimming, see resemblyzer_reference.py)
    P+vad.moving_average_width u32  8
    P+vad.max_silence_windows  u32  6
    P+partial.n_frames         u32  160   (1.6 s)
    P+partial.rate             f32  1.3   (partials per second: frame step round(16000/1.3/160) = 77)
    P+partial.min_coverage     f32  0.75
    P+lstm.input_size          u32  40
    P+lstm.hidden_size         u32  256
    P+block_count              u32  3     (LSTM layers)
    P+embedding_length         u32  256

Tensors, all F32. Shapes are numpy's (row-major: [rows, cols]); GGUF lists dimensions
fastest first, so the file's ne is the reverse (e.g. lstm.0.weight_ih has ne = [40, 1024]).

    lstm.{0,1,2}.weight_ih   [1024, 40] for layer 0, [1024, 256] for layers 1 and 2
    lstm.{0,1,2}.weight_hh   [1024, 256]
    lstm.{0,1,2}.bias_ih     [1024]
    lstm.{0,1,2}.bias_hh     [1024]
    linear.weight            [256, 256]   (out, in): y = W h + b
    linear.bias              [256]
    mel.filters              [40, 201]    librosa.filters.mel(sr=16000, n_fft=400, n_mels=40)
                                          (slaney scale, slaney norm, float32): mel = filters @ power

The LSTM rows are PyTorch's: four blocks of 256 in gate order i, f, g, o;
gates = W_ih x + b_ih + W_hh h + b_hh; i, f, o = sigmoid; g = tanh; c = f c + i g;
h = o tanh(c); h and c start at zero for every partial.

The output is written to a temporary file next to FILE.gguf and renamed into place when
complete.
"""
import argparse, collections, io, os, pickle, struct, sys, tempfile, time, zipfile

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("convert_resemblyzer_gguf.py: the `gguf` package is missing (scripts/env.sh PYTHON_TOOLS_PACKAGES)")

# Resemblyzer 0.1.4 resemblyzer/hparams.py and audio.py.
SAMPLE_RATE = 16000
N_FFT = SAMPLE_RATE * 25 // 1000        # mel_window_length = 25 ms → 400
HOP_LENGTH = SAMPLE_RATE * 10 // 1000   # mel_window_step = 10 ms → 160
N_MELS = 40
PARTIAL_FRAMES = 160
PARTIAL_RATE = 1.3
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0
VAD_WINDOW_MS = 30
VAD_MOVING_AVERAGE_WIDTH = 8
VAD_MAX_SILENCE = 6
HIDDEN = 256
LAYERS = 3
EMBEDDING = 256

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
STORAGE_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
                  "BFloat16Storage": np.uint16, "LongStorage": np.int64, "IntStorage": np.int32,
                  "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8,
                  "BoolStorage": np.bool_}


class ConvertError(Exception):
    pass


def find_checkpoint(root):
    if os.path.isfile(root):
        return root
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        if "pretrained.pt" in filenames:
            found.append(os.path.join(dirpath, "pretrained.pt"))
    if not found:
        raise ConvertError(f"{root}: no pretrained.pt below this folder")
    if len(found) > 1:
        raise ConvertError(f"{root}: several pretrained.pt below this folder: {', '.join(found)}")
    return found[0]


# ---------------------------------------------------------------- torch checkpoints without torch
class _Storage:
    """A storage named by a persistent id; its data is attached once read."""
    def __init__(self, kind, key, numel):
        self.dtype = STORAGE_DTYPES[kind]
        self.key, self.numel, self.data = key, numel, None


class _Tensor:
    """What torch._utils._rebuild_tensor_v2 would build, resolved to numpy once storages are read."""
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def numpy(self):
        data = self.storage.data
        if data is None:
            raise ConvertError(f"storage {self.storage.key} was never read")
        if self.storage.dtype == np.uint16:   # BF16 → F32
            data = (data.astype(np.uint32) << 16).view(np.float32)
        item = data.itemsize
        needed = self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride)) + 1 if self.size else self.offset + 1
        if min(self.size, default=1) > 0 and needed > data.size:
            raise ConvertError(f"tensor {self.size} at offset {self.offset} runs past its storage of {data.size}")
        return np.lib.stride_tricks.as_strided(data[self.offset:], shape=self.size,
                                               strides=[s * item for s in self.stride]).copy()


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
    return _Tensor(storage, offset, size, stride)


def _rebuild_parameter(data, requires_grad, hooks, *rest):
    return data


class _Unpickler(pickle.Unpickler):
    """Maps the few globals a state dict needs; anything else is refused."""
    def __init__(self, f, storages, read_zip_storage=None):
        super().__init__(f)
        self.storages, self.read_zip_storage = storages, read_zip_storage

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) in (("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_tensor")):
            return _rebuild_tensor_v2
        if (module, name) == ("torch._utils", "_rebuild_parameter"):
            return _rebuild_parameter
        if module == "torch" and name in STORAGE_DTYPES:
            return name
        raise ConvertError(f"the checkpoint needs {module}.{name}, which this converter does not map")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise ConvertError(f"unexpected persistent id {pid!r}")
        kind, key, _location, numel = pid[1:5]
        view = pid[5] if len(pid) > 5 else None
        if view is not None:
            raise ConvertError("storage views (pre-1.0 checkpoints) are not supported")
        if key not in self.storages:
            st = _Storage(kind, key, numel)
            if self.read_zip_storage is not None:
                st.data = self.read_zip_storage(key, st.dtype, numel)
            self.storages[key] = st
        return self.storages[key]


def read_torch_checkpoint(path):
    """The unpickled checkpoint, with every tensor as a float/int numpy array."""
    storages = {}
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            pkl = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
            if len(pkl) != 1:
                raise ConvertError(f"{path}: a zip without exactly one data.pkl")
            prefix = pkl[0][:-len("data.pkl")]

            def read(key, dtype, numel):
                raw = z.read(f"{prefix}data/{key}")
                if len(raw) < numel * np.dtype(dtype).itemsize:
                    raise ConvertError(f"{path}: storage {key} is shorter than {numel} elements")
                return np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"), count=numel)

            obj = _Unpickler(io.BytesIO(z.read(pkl[0])), storages, read).load()
    else:
        with open(path, "rb") as f:
            try:
                magic = pickle.load(f)
                if magic != LEGACY_MAGIC:
                    raise ConvertError(f"{path}: neither a zip nor a legacy torch file (magic {magic!r})")
                protocol = pickle.load(f)
                if protocol != 1001:
                    raise ConvertError(f"{path}: legacy protocol {protocol}, expected 1001")
                sys_info = pickle.load(f)
                if not sys_info.get("little_endian", True):
                    raise ConvertError(f"{path}: written on a big-endian machine")
                obj = _Unpickler(f, storages).load()
                keys = pickle.load(f)
            except (pickle.UnpicklingError, EOFError, AttributeError) as e:
                raise ConvertError(f"{path}: unreadable pickle ({e})") from None
            for key in keys:
                st = storages.get(key)
                if st is None:
                    raise ConvertError(f"{path}: storage {key} is listed but no tensor uses it")
                head = f.read(8)
                if len(head) != 8:
                    raise ConvertError(f"{path}: truncated before storage {key}")
                (numel,) = struct.unpack("<q", head)
                if numel != st.numel:
                    raise ConvertError(f"{path}: storage {key} has {numel} elements, the pickle says {st.numel}")
                nbytes = numel * np.dtype(st.dtype).itemsize
                raw = f.read(nbytes)
                if len(raw) != nbytes:
                    raise ConvertError(f"{path}: truncated in storage {key}")
                st.data = np.frombuffer(raw, dtype=np.dtype(st.dtype).newbyteorder("<"))
            if f.read(1):
                raise ConvertError(f"{path}: unexpected bytes after the last storage")

    def resolve(o):
        if isinstance(o, _Tensor):
            return o.numpy()
        if isinstance(o, dict):
            return type(o)((k, resolve(v)) for k, v in o.items())
        if isinstance(o, (list, tuple)):
            return type(o)(resolve(v) for v in o)
        return o
    return resolve(obj)


# ---------------------------------------------------------------- librosa's mel filterbank
def hz_to_mel(f):
    """librosa.hz_to_mel(htk=False): Slaney's scale, linear below 1 kHz, log above."""
    f = np.asanyarray(f, dtype=np.float64)
    f_sp = 200.0 / 3
    mels = f / f_sp
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, np.log(6.4) / 27.0
    if mels.ndim:
        t = f >= min_log_hz
        mels[t] = min_log_mel + np.log(f[t] / min_log_hz) / logstep
    elif f >= min_log_hz:
        mels = min_log_mel + np.log(f / min_log_hz) / logstep
    return mels


def mel_to_hz(m):
    """librosa.mel_to_hz(htk=False)."""
    m = np.asanyarray(m, dtype=np.float64)
    f_sp = 200.0 / 3
    freqs = f_sp * m
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, np.log(6.4) / 27.0
    t = m >= min_log_mel
    freqs[t] = min_log_hz * np.exp(logstep * (m[t] - min_log_mel))
    return freqs


def mel_filters(sr=SAMPLE_RATE, n_fft=N_FFT, n_mels=N_MELS, fmin=0.0, fmax=None):
    """librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=n_mels) with its defaults (htk=False,
    norm="slaney", dtype=float32), step for step: triangles in Hz between mel-spaced edges,
    computed in float64 and stored in float32, then scaled by 2 / (upper edge - lower edge)."""
    if fmax is None:
        fmax = float(sr) / 2
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    fftfreqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sr)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fftfreqs)
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
    weights *= enorm[:, np.newaxis]
    return weights


# ---------------------------------------------------------------- conversion
def gguf_tensors(state):
    """{gguf name: float32 array} from the VoiceEncoder state dict, with shapes checked."""
    out = {}
    for layer in range(LAYERS):
        n_in = N_MELS if layer == 0 else HIDDEN
        for kind, shape in (("weight_ih", (4 * HIDDEN, n_in)), ("weight_hh", (4 * HIDDEN, HIDDEN)),
                            ("bias_ih", (4 * HIDDEN,)), ("bias_hh", (4 * HIDDEN,))):
            src = f"lstm.{kind}_l{layer}"
            if src not in state:
                raise ConvertError(f"model_state lacks {src}")
            a = np.asarray(state[src])
            if a.shape != shape:
                raise ConvertError(f"{src} has shape {a.shape}, expected {shape}")
            out[f"lstm.{layer}.{kind}"] = a
    for kind, shape in (("weight", (EMBEDDING, HIDDEN)), ("bias", (EMBEDDING,))):
        src = f"linear.{kind}"
        if src not in state:
            raise ConvertError(f"model_state lacks {src}")
        if state[src].shape != shape:
            raise ConvertError(f"{src} has shape {state[src].shape}, expected {shape}")
        out[src] = np.asarray(state[src])
    known = set(f"lstm.{k}_l{l}" for l in range(LAYERS) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
    known |= {"linear.weight", "linear.bias", "similarity_weight", "similarity_bias"}
    extra = sorted(set(state) - known)
    if extra:
        raise ConvertError(f"model_state has tensors this converter does not know: {', '.join(extra)}")
    for name, a in out.items():
        if not np.all(np.isfinite(a)):
            raise ConvertError(f"{name} has non-finite values")
    out["mel.filters"] = mel_filters()
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, help="folder at or above pretrained.pt (or the file itself)")
    ap.add_argument("--output", required=True, help="GGUF file to write")
    ap.add_argument("--name", default="Resemblyzer GE2E speaker encoder", help="general.name (default: %(default)s)")
    args = ap.parse_args()
    t0 = time.monotonic()

    path = find_checkpoint(args.input)
    checkpoint = read_torch_checkpoint(path)
    if not isinstance(checkpoint, dict) or "model_state" not in checkpoint:
        raise ConvertError(f"{path}: no model_state in the checkpoint")
    tensors = gguf_tensors(checkpoint["model_state"])

    outdir = os.path.dirname(os.path.abspath(args.output)) or "."
    os.makedirs(outdir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(args.output) + ".", suffix=".tmp", dir=outdir)
    os.close(fd)
    try:
        arch = "resemblyzer"
        w = gguf.GGUFWriter(tmp, arch)
        w.add_name(args.name)
        w.add_file_type(gguf.LlamaFileType.ALL_F32)
        if "step" in checkpoint:
            w.add_uint32(f"{arch}.training_step", int(checkpoint["step"]))
        w.add_uint32(f"{arch}.sample_rate", SAMPLE_RATE)
        w.add_uint32(f"{arch}.mel.n_fft", N_FFT)
        w.add_uint32(f"{arch}.mel.hop_length", HOP_LENGTH)
        w.add_uint32(f"{arch}.mel.win_length", N_FFT)
        w.add_string(f"{arch}.mel.window", "hann")
        w.add_bool(f"{arch}.mel.center", True)
        w.add_string(f"{arch}.mel.pad_mode", "constant")
        w.add_float32(f"{arch}.mel.power", 2.0)
        w.add_uint32(f"{arch}.mel.n_mels", N_MELS)
        w.add_float32(f"{arch}.mel.fmin", 0.0)
        w.add_float32(f"{arch}.mel.fmax", SAMPLE_RATE / 2)
        w.add_bool(f"{arch}.mel.log", False)
        w.add_string(f"{arch}.mel.scale", "slaney")
        w.add_string(f"{arch}.mel.norm", "slaney")
        w.add_float32(f"{arch}.audio.target_dbfs", TARGET_DBFS)
        w.add_bool(f"{arch}.audio.increase_only", True)
        w.add_uint32(f"{arch}.vad.window_ms", VAD_WINDOW_MS)
        w.add_uint32(f"{arch}.vad.moving_average_width", VAD_MOVING_AVERAGE_WIDTH)
        w.add_uint32(f"{arch}.vad.max_silence_windows", VAD_MAX_SILENCE)
        w.add_uint32(f"{arch}.partial.n_frames", PARTIAL_FRAMES)
        w.add_float32(f"{arch}.partial.rate", PARTIAL_RATE)
        w.add_float32(f"{arch}.partial.min_coverage", MIN_COVERAGE)
        w.add_uint32(f"{arch}.lstm.input_size", N_MELS)
        w.add_uint32(f"{arch}.lstm.hidden_size", HIDDEN)
        w.add_block_count(LAYERS)
        w.add_embedding_length(EMBEDDING)

        order = [f"lstm.{l}.{k}" for l in range(LAYERS) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        order += ["linear.weight", "linear.bias", "mel.filters"]
        for name in order:
            w.add_tensor(name, tensors[name])

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
    n_params = sum(a.size for k, a in tensors.items() if k != "mel.filters")
    print(f"wrote {args.output}: resemblyzer LSTM {LAYERS}x{HIDDEN} on {N_MELS} mels → {EMBEDDING} dims, "
          f"{len(tensors)} F32 tensors ({n_params} weights + mel.filters {N_MELS}x{1 + N_FFT // 2}), "
          f"{size / 1e6:.1f} MB in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except ConvertError as e:
        sys.exit(f"convert_resemblyzer_gguf.py: {e}")
