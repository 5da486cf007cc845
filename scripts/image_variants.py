#!/usr/bin/env python3
"""Writes the vision tests' images: real photographs as they come, and as other encoders write them.

    python3 scripts/image_variants.py --input IMAGE_SET --output DIR

IMAGE_SET is scikit-image's sample data (the bootstrap's real images). DIR receives:
- the photographs themselves (PNG: RGB, grey, RGBA; JPEG: baseline and progressive);
- astronaut.png re-encoded by Pillow (libjpeg-turbo, zlib) as progressive, grey and CMYK
  JPEGs and as palette, grey+alpha and 16-bit PNGs;
- bad-zlib.png: a PNG whose chunk structure and CRCs are right but whose compressed pixel
  data is noise, which only a decoder can find.

Prints a JSON manifest on stdout: [{"file", "format", "width", "height", "mode"}] as
Pillow reads each file (bad-zlib.png as the header says).
"""
import argparse
import json
import os
import random
import shutil
import struct
import zlib

from PIL import Image

PHOTOS = [
    "astronaut.png",
    "camera.png",
    "coffee.png",
    "logo.png",
    "chelsea.png",
    "hubble_deep_field.jpg",
    "rocket.jpg",
    "retina.jpg",
]


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def bad_zlib_png(path):
    noise = random.Random(7).randbytes(400)
    header = struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", noise) + chunk(b"IEND", b"")
    with open(path, "wb") as out:
        out.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    for name in PHOTOS:
        shutil.copyfile(os.path.join(args.input, name), os.path.join(args.output, name))
    astronaut = Image.open(os.path.join(args.input, "astronaut.png")).convert("RGB")
    variants = {
        "astronaut-progressive.jpg": lambda p: astronaut.save(p, "JPEG", quality=80, progressive=True),
        "astronaut-grey.jpg": lambda p: astronaut.convert("L").save(p, "JPEG", quality=90),
        "astronaut-cmyk.jpg": lambda p: astronaut.convert("CMYK").save(p, "JPEG", quality=90),
        "astronaut-palette.png": lambda p: astronaut.convert("P", palette=Image.Palette.ADAPTIVE).save(p, "PNG"),
        "astronaut-grey-alpha.png": lambda p: astronaut.convert("LA").save(p, "PNG"),
        "astronaut-16bit.png": lambda p: astronaut.convert("I").point(lambda v: v * 256).convert("I;16").save(p, "PNG"),
    }
    for name, save in variants.items():
        save(os.path.join(args.output, name))
    manifest = []
    for name in PHOTOS + list(variants):
        with Image.open(os.path.join(args.output, name)) as image:
            manifest.append(
                {
                    "file": name,
                    "format": "jpeg" if image.format == "JPEG" else "png",
                    "width": image.width,
                    "height": image.height,
                    "mode": image.mode,
                }
            )
    bad_zlib_png(os.path.join(args.output, "bad-zlib.png"))
    manifest.append({"file": "bad-zlib.png", "format": "png", "width": 32, "height": 32, "mode": "RGB"})
    json.dump(manifest, fp=__import__("sys").stdout, indent=1)


if __name__ == "__main__":
    main()
