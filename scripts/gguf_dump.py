#!/usr/bin/env python3
"""Prints what the `gguf` package (llama.cpp's own Python reader) finds in a GGUF file, as JSON.

    python3 scripts/gguf_dump.py FILE.gguf

Output: {"version", "alignment", "metadata": [[key, type, value], ...] in file order,
"tensors": [{"name", "type", "dimensions", "values"}]}. Types are GGUF's names (UINT8 ... FLOAT64,
ARRAY as ["ARRAY", element type, items]); dimensions are ggml's ne (fastest first); values are
the F32/F16 data as floats. Tests use it to check that files the SDK writes read the same here.
"""
import json
import sys

from gguf import GGUFReader, GGUFValueType


def value(field):
    """The value of `field`, with its type."""
    kind = GGUFValueType(field.types[0])
    if kind == GGUFValueType.ARRAY:
        return array(field)
    return [kind.name, scalar(field, kind, field.data[0])]


def scalar(field, kind, part_index):
    part = field.parts[part_index]
    if kind == GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    item = part.tolist()[0]
    if kind == GGUFValueType.BOOL:
        return bool(item)
    return item


def array(field):
    # One level deep: the reader flattens nested arrays, which no model file has.
    element = GGUFValueType(field.types[1]) if len(field.types) > 1 else None
    items = [scalar(field, GGUFValueType(field.types[-1]), i) for i in field.data]
    return ["ARRAY", element.name if element else None, items]


def main():
    reader = GGUFReader(sys.argv[1])
    metadata = []
    for key, field in reader.fields.items():
        if key.startswith("GGUF."):
            continue
        metadata.append([key] + value(field))
    tensors = []
    for tensor in reader.tensors:
        tensors.append(
            {
                "name": tensor.name,
                "type": tensor.tensor_type.name,
                "dimensions": [int(d) for d in tensor.shape],
                "values": [float(v) for v in tensor.data.astype("float32").reshape(-1)],
            }
        )
    version = int(reader.fields["GGUF.version"].parts[-1][0])
    json.dump({"version": version, "alignment": int(reader.alignment), "metadata": metadata, "tensors": tensors}, sys.stdout)


if __name__ == "__main__":
    main()
