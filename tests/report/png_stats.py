#!/usr/bin/env python3
"""Pixel statistics of a PNG screenshot, as JSON, for the browser test.

usage: png_stats.py FILE.png '#rrggbb' ...

Prints {"width", "height", "distinct", "colors": {"#rrggbb": {"count", "min_x", "max_x",
"min_y", "max_y"}}}: how many distinct colours the picture has (a blank page has one), and
where each given colour (within a small tolerance) appears. A tiny decoder (zlib only) for what Chromium writes: 8-bit RGB or
RGBA, not interlaced.
"""
import collections
import json
import struct
import sys
import zlib

TOLERANCE = 6


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {color_type})")
    channels = 3 if color_type == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    low7 = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            # Bytewise addition without carries, on the whole row at once.
            a, b = int.from_bytes(line, "big"), int.from_bytes(previous, "big")
            line = bytearray((((a & low7) + (b & low7)) ^ ((a ^ b) & high)).to_bytes(stride, "big"))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            up = previous
            for i in range(channels):
                line[i] = (line[i] + up[i]) & 0xFF
            for i in range(channels, stride):
                a, b, c = line[i - channels], up[i], up[i - channels]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    path, wanted = sys.argv[1], sys.argv[2:]
    width, height, channels, rows = read_png(path)
    targets = {w: tuple(int(w[i:i + 2], 16) for i in (1, 3, 5)) for w in wanted}
    found = {w: {"count": 0, "min_x": width, "max_x": -1, "min_y": height, "max_y": -1}
             for w in wanted}
    distinct = set()
    matches = {}  # pixel colour -> the wanted colour it is within tolerance of, or None
    for y, line in enumerate(rows):
        pixels = list(zip(line[0::channels], line[1::channels], line[2::channels]))
        counts = collections.Counter(pixels)
        distinct.update(counts)
        for colour, n in counts.items():
            if colour not in matches:
                matches[colour] = next((name for name, t in targets.items()
                                        if all(abs(p - q) <= TOLERANCE for p, q in zip(colour, t))),
                                       None)
            name = matches[colour]
            if name is None:
                continue
            f = found[name]
            f["count"] += n
            first = pixels.index(colour)
            last = width - 1 - pixels[::-1].index(colour)
            f["min_x"], f["max_x"] = min(f["min_x"], first), max(f["max_x"], last)
            f["min_y"], f["max_y"] = min(f["min_y"], y), max(f["max_y"], y)
    print(json.dumps({"width": width, "height": height, "distinct": len(distinct), "colors": found}))


if __name__ == "__main__":
    main()
