#!/usr/bin/env python3
"""Reference speaker embeddings from Resemblyzer's GE2E encoder, for tests of the Swift path.

    python3 scripts/resemblyzer_reference.py --model FILE.gguf --wav CLIP.wav
    python3 scripts/resemblyzer_reference.py --model FILE.gguf --wav CLIP.wav --vad-flags FLAGS.json
    python3 scripts/resemblyzer_reference.py --model FILE.gguf --wav CLIP.wav --all-mel

FILE.gguf is what scripts/convert_resemblyzer_gguf.py writes (weights and mel filterbank are
read from it with the `gguf` package); CLIP.wav is 16 kHz mono 16-bit PCM (read with
`wave`). Computes, in float32 as Resemblyzer 0.1.4 does (torch is float32), what
`VoiceEncoder().embed_utterance(preprocess_wav(path), return_partials=True)` gives, except
that silence trimming is off by default:

1. samples = int16 / 32768 (float32), as librosa.load reads a 16-bit file.
2. Volume normalization (audio.normalize_volume, target -30 dBFS, increase only):
   rms = sqrt(mean((x * 32767)^2)); dBFS = 20 log10(rms / 32767); change = -30 - dBFS;
   if change < 0 (louder than -30 dBFS) the samples are left as they are, else x *= 10^(change/20).
   (Digital silence gives rms 0 and NaN samples in Resemblyzer; here it is refused.)
3. Silence trimming (audio.trim_long_silences): OFF unless --trim or --vad-flags. Resemblyzer
   cuts the samples to a multiple of 480 (30 ms), runs webrtcvad (mode 3) on each 30 ms
   window of round(x * 32767) as int16, smooths the 0/1 flags with a width-8 moving average
   (3 zeros padded before, 4 after; window i averages flags i-3..i+4), rounds it with
   np.round (half to even: 4 of 8 voiced rounds to 0, 5 of 8 to 1), dilates the result by 3
   windows on each side (scipy binary_dilation with ones(7)), and keeps only the samples of
   the voiced windows. --vad-flags FILE takes the per-window flags from a JSON array (one 0/1
   per 30 ms window, e.g. from our own VAD) and applies the same smoothing and dilation;
   --trim runs webrtcvad itself (it must be importable: we do not install it).
4. Partial slices (VoiceEncoder.compute_partial_slices, rate 1.3, min_coverage 0.75):
   n = samples; n_frames = ceil((n + 1) / 160); step = round(16000 / 1.3 / 160) = 77;
   partial k covers mel frames [77k, 77k + 160) (samples ×160), for 77k < max(1, n_frames - 160 + 77 + 1);
   the last one is dropped if more than one exists and (n - start) / 25600 < 0.75 (start in samples).
   The samples are zero-padded to the last partial's end (160 × (77k + 160)) when that is >= n.
5. Mel (audio.wav_to_mel_spectrogram = librosa.feature.melspectrogram defaults): 200 zeros
   each side (center=True, pad_mode "constant"), frames of 400 every 160 (1 + len // 160
   frames), × periodic Hann (float64), rfft (float64, rounded to complex64), |·|^2 in float32,
   then mel = mel.filters (40×201) @ power. No log.
6. Each partial (160 frames × 40) goes through the 3-layer LSTM (PyTorch gate order i, f, g, o;
   zero initial state), the last layer's final h through linear → ReLU → / L2 norm.
7. Utterance embedding = mean of the partial embeddings / its L2 norm.

Prints JSON: {"samples": n after steps 2-3, "padded_samples", "gain" (step 2 factor, 1 if
unchanged), "frames" (mel frames of the padded samples, step 5), "mel_first_frame" [40],
"partial_starts" [mel frame index of each partial], "partials" [[256], ...],
"embedding" [256]}, plus "mel" [[40], ...] (every frame) with --all-mel.

Needs numpy and gguf only (no torch, librosa or scipy).
"""
import argparse, json, sys, wave

import numpy as np

try:
    import gguf
except ImportError:
    sys.exit("resemblyzer_reference.py: the `gguf` package is missing (scripts/env.sh PYTHON_TOOLS_PACKAGES)")

INT16_MAX = 2 ** 15 - 1


def load_model(path):
    r = gguf.GGUFReader(path)

    def field(key):
        f = r.fields.get(key)
        if f is None:
            sys.exit(f"resemblyzer_reference.py: {path} lacks {key}")
        return f.contents()

    if field("general.architecture") != "resemblyzer":
        sys.exit(f"resemblyzer_reference.py: {path} is not a resemblyzer GGUF")
    hp = {k: field("resemblyzer." + k) for k in (
        "sample_rate", "mel.n_fft", "mel.hop_length", "mel.win_length", "mel.n_mels", "audio.target_dbfs",
        "vad.window_ms", "vad.moving_average_width", "vad.max_silence_windows",
        "partial.n_frames", "partial.rate", "partial.min_coverage", "block_count")}
    W = {t.name: np.array(t.data, dtype=np.float32).reshape([int(d) for d in reversed(t.shape)]) for t in r.tensors}
    return hp, W


def read_wav(path, sr):
    with wave.open(path, "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2 or w.getframerate() != sr:
            sys.exit(f"resemblyzer_reference.py: {path} is {w.getnchannels()} ch, {8 * w.getsampwidth()} bit, "
                     f"{w.getframerate()} Hz; expected mono 16-bit {sr} Hz")
        data = w.readframes(w.getnframes())
    return (np.frombuffer(data, dtype="<i2").astype(np.float32) / np.float32(32768.0)).astype(np.float32)


def normalize_volume(wav, target_dbfs):
    """audio.normalize_volume(wav, target_dbfs, increase_only=True), float32 throughout."""
    rms = np.sqrt(np.mean((wav * np.float32(INT16_MAX)) ** 2))
    if not rms > 0:
        sys.exit("resemblyzer_reference.py: the clip is digital silence (Resemblyzer would give NaN)")
    wave_dbfs = np.float32(20) * np.log10(rms / np.float32(INT16_MAX))
    change = np.float32(target_dbfs) - wave_dbfs
    if change < 0:
        return wav, 1.0
    gain = np.float32(10) ** (change / np.float32(20))
    return (wav * gain).astype(np.float32), float(gain)


def webrtc_flags(wav, sr, samples_per_window):
    try:
        import webrtcvad
    except ImportError:
        sys.exit("resemblyzer_reference.py: --trim needs the webrtcvad module; pass --vad-flags instead")
    pcm = np.round(wav * INT16_MAX).astype("<i2").tobytes()
    vad = webrtcvad.Vad(mode=3)
    return [vad.is_speech(pcm[s * 2:(s + samples_per_window) * 2], sample_rate=sr)
            for s in range(0, len(wav), samples_per_window)]


def trim_long_silences(wav, flags, samples_per_window, width, max_silence):
    """audio.trim_long_silences with the VAD's per-window flags given."""
    wav = wav[:len(wav) - (len(wav) % samples_per_window)]
    n = len(wav) // samples_per_window
    flags = np.asarray(flags, dtype=float)
    if len(flags) != n:
        sys.exit(f"resemblyzer_reference.py: {len(flags)} VAD flags for {n} windows of {samples_per_window} samples")
    padded = np.concatenate((np.zeros((width - 1) // 2), flags, np.zeros(width // 2)))
    ret = np.cumsum(padded, dtype=float)
    ret[width:] = ret[width:] - ret[:-width]
    mask = np.round(ret[width - 1:] / width).astype(bool)
    # scipy.ndimage.binary_dilation(mask, np.ones(max_silence + 1)): max_silence // 2 each side
    # for an odd structure (the only case Resemblyzer's hparams give).
    k = max_silence + 1
    if k % 2 == 0:
        sys.exit("resemblyzer_reference.py: even dilation widths are not supported")
    dil = np.convolve(mask.astype(int), np.ones(k, dtype=int), mode="full")[k // 2:k // 2 + n] > 0
    return wav[np.repeat(dil, samples_per_window)]


def partial_slices(n_samples, hop, n_partial, rate, min_coverage, sr):
    """VoiceEncoder.compute_partial_slices: the first mel frame of each partial."""
    n_frames = int(np.ceil((n_samples + 1) / hop))
    step = int(np.round((sr / rate) / hop))
    assert 0 < step <= n_partial
    starts = list(range(0, max(1, n_frames - n_partial + step + 1), step))
    coverage = (n_samples - starts[-1] * hop) / (n_partial * hop)
    if coverage < min_coverage and len(starts) > 1:
        starts = starts[:-1]
    return starts


def mel_spectrogram(wav, filters, n_fft, hop):
    """librosa.feature.melspectrogram(y=wav, sr, n_fft, hop_length, n_mels) → [frames, n_mels] float32."""
    y = np.pad(wav, (n_fft // 2, n_fft // 2), mode="constant")
    n = 1 + (len(y) - n_fft) // hop
    frames = np.lib.stride_tricks.as_strided(y, shape=(n, n_fft), strides=(hop * y.itemsize, y.itemsize))
    window = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n_fft) / n_fft)   # scipy hann(n_fft, sym=False)
    spec = np.fft.rfft(frames * window, axis=-1).astype(np.complex64)
    power = np.abs(spec) ** 2                                              # float32
    return (power @ filters.T).astype(np.float32)


def sigmoid(x):
    with np.errstate(over="ignore"):
        return (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)


def embed_partials(W, layers, mels):
    """VoiceEncoder.forward on a batch [P, T, 40] → [P, 256]."""
    x = mels
    for l in range(layers):
        w_ih, w_hh = W[f"lstm.{l}.weight_ih"], W[f"lstm.{l}.weight_hh"]
        b = W[f"lstm.{l}.bias_ih"] + W[f"lstm.{l}.bias_hh"]
        H = w_hh.shape[1]
        xin = x @ w_ih.T                                # [P, T, 4H]
        h = np.zeros((x.shape[0], H), dtype=np.float32)
        c = np.zeros((x.shape[0], H), dtype=np.float32)
        out = np.empty((x.shape[0], x.shape[1], H), dtype=np.float32)
        for t in range(x.shape[1]):
            g = xin[:, t] + b + h @ w_hh.T
            i, f, gg, o = sigmoid(g[:, :H]), sigmoid(g[:, H:2 * H]), np.tanh(g[:, 2 * H:3 * H]), sigmoid(g[:, 3 * H:])
            c = f * c + i * gg
            h = o * np.tanh(c)
            out[:, t] = h
        x = out
    e = np.maximum(h @ W["linear.weight"].T + W["linear.bias"], np.float32(0))
    return (e / np.linalg.norm(e, axis=1, keepdims=True)).astype(np.float32)


def reference(hp, W, wav, vad_flags=None, trim=False):
    sr, n_fft, hop = hp["sample_rate"], hp["mel.n_fft"], hp["mel.hop_length"]
    wav, gain = normalize_volume(wav, hp["audio.target_dbfs"])
    if trim or vad_flags is not None:
        spw = hp["vad.window_ms"] * sr // 1000
        flags = vad_flags if vad_flags is not None else webrtc_flags(wav[:len(wav) - len(wav) % spw], sr, spw)
        wav = trim_long_silences(wav, flags, spw, hp["vad.moving_average_width"], hp["vad.max_silence_windows"])
        if len(wav) == 0:
            sys.exit("resemblyzer_reference.py: trimming left no samples")
    n_partial = hp["partial.n_frames"]
    starts = partial_slices(len(wav), hop, n_partial, hp["partial.rate"], hp["partial.min_coverage"], sr)
    end = (starts[-1] + n_partial) * hop
    padded = np.pad(wav, (0, end - len(wav)), "constant") if end >= len(wav) else wav
    mel = mel_spectrogram(padded, W["mel.filters"], n_fft, hop)
    mels = np.stack([mel[s:s + n_partial] for s in starts])
    partials = embed_partials(W, hp["block_count"], mels)
    raw = np.mean(partials, axis=0)
    embedding = raw / np.linalg.norm(raw, 2)
    return {"samples": len(wav), "padded_samples": len(padded), "gain": gain, "mel": mel,
            "partial_starts": starts, "partials": partials, "embedding": embedding}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="GGUF written by convert_resemblyzer_gguf.py")
    ap.add_argument("--wav", required=True, help="16 kHz mono 16-bit WAV")
    ap.add_argument("--trim", action="store_true", help="trim long silences with webrtcvad, as preprocess_wav does")
    ap.add_argument("--vad-flags", metavar="FILE", help="trim with these per-30-ms-window VAD flags (JSON array)")
    ap.add_argument("--all-mel", action="store_true", help="also print every mel frame")
    args = ap.parse_args()
    hp, W = load_model(args.model)
    flags = None
    if args.vad_flags:
        with open(args.vad_flags, encoding="utf-8") as f:
            flags = [bool(v) for v in json.load(f)]
    r = reference(hp, W, read_wav(args.wav, hp["sample_rate"]), flags, args.trim)
    out = {"samples": r["samples"], "padded_samples": r["padded_samples"], "gain": r["gain"],
           "frames": int(r["mel"].shape[0]), "mel_first_frame": [float(v) for v in r["mel"][0]],
           "partial_starts": r["partial_starts"],
           "partials": [[float(v) for v in p] for p in r["partials"]],
           "embedding": [float(v) for v in r["embedding"]]}
    if args.all_mel:
        out["mel"] = [[float(v) for v in row] for row in r["mel"]]
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
