#!/usr/bin/env python3
"""Writes the generated test images, Python standard library plus `cjpeg` (libjpeg-turbo-progs).

    make-images.py OUTDIR
        photo.jpg     64x48 JPEG (quality 90), a colour gradient, built by cjpeg from photo.ppm
        gradient.png  32x32 8-bit RGBA PNG, a gradient whose alpha falls from 255 to 0 left to right

The pixel formulas are fixed, so the decoded pixels are the same on every run.
"""
import os
import struct
import subprocess
import sys
import zlib


def write_ppm(path, width, height):
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            pixels += bytes((x * 255 // (width - 1), y * 255 // (height - 1), 128))
    with open(path, "wb") as out:
        out.write(f"P6\n{width} {height}\n255\n".encode() + pixels)


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_png(path, width, height):
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter type: none
        for x in range(width):
            rows += bytes((x * 255 // (width - 1), y * 255 // (height - 1), 200, 255 - x * 255 // (width - 1)))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header)
                  + png_chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + png_chunk(b"IEND", b""))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    ppm = os.path.join(out, "photo.ppm")
    write_ppm(ppm, 64, 48)
    subprocess.run(["cjpeg", "-quality", "90", "-outfile", os.path.join(out, "photo.jpg"), ppm], check=True)
    os.remove(ppm)
    write_png(os.path.join(out, "gradient.png"), 32, 32)


if __name__ == "__main__":
    main()
