#!/usr/bin/env python3
"""Writes, beside each of Pillow's TIFF test images in this directory, the pixels Pillow decodes it to.

The TIFFs are copied unchanged from python-pillow/Pillow's Tests/images (see NOTICE). The tests compare
ImageDecoder's RGBA8 with these PNGs (which our libpng decoder reads exactly), so they need no Pillow at
run time; this script needs Pillow (written with Pillow 13.0.0: python3 -m venv v && v/bin/pip install pillow).

For NAME.tif it writes:
- NAME.stored.png: the pixels as stored, before the Orientation tag is applied. Pillow 13 applies the tag
  while loading a TIFF (exif_transpose) and deletes it; the stored pixels are that image turned back
  (each EXIF transposition undone exactly, pixels only moved). Older Pillow loads them as stored.
- NAME.upright.png when the file declares an orientation other than 1: Pillow's upright image, which
  `appliesOrientation` must give.
Reductions to RGBA8 are Pillow's own (`convert("RGBA")`): 16-bit RGB(A) and CMYK keep the high byte,
associated alpha is divided out, CMYK becomes RGB by Pillow's formula. Gray of more than 8 bits stays
16-bit in Pillow (mode I;16), whose own 8-bit conversion clips at 255; the expectation is its 8 most
significant bits instead, the reduction Pillow applies to 16-bit RGB, and the one ImageDecoder documents.

Usage: make_pillow_expectations.py [DIR]   (default: this script's directory)
"""
import os
import sys

from PIL import Image, ImageOps

ORIENTATION = 274
# The transposition that undoes the one exif_transpose applies for each EXIF orientation.
UNDO = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def decoded(path):
    """(stored RGBA-ish image, upright image) as Pillow decodes the file."""
    image = Image.open(path)
    orientation = image.tag_v2.get(ORIENTATION, 1)
    bits = image.tag_v2.get(258, (1,))[0]
    image.load()
    applied_on_load = ORIENTATION not in image.tag_v2
    upright = image if applied_on_load else ImageOps.exif_transpose(image)
    stored = upright.transpose(UNDO[orientation]) if orientation in UNDO else upright
    if stored.mode.startswith("I;16"):
        # Pillow's I;16 bytes are little-endian 16-bit samples; I;16B's big-endian.
        raw, shift, big = stored.tobytes(), bits - 8, stored.mode == "I;16B"
        values = (int.from_bytes(raw[i:i + 2], "big" if big else "little") for i in range(0, len(raw), 2))
        stored = Image.frombytes("L", stored.size, bytes(value >> shift for value in values))
    return stored, upright if orientation != 1 else None


def smallest_png(image, path):
    """Saves `image` as gray, RGB or RGBA PNG, whichever holds its RGBA8 pixels exactly."""
    rgba = image.convert("RGBA")
    raw = rgba.tobytes()
    pixels = [raw[i:i + 4] for i in range(0, len(raw), 4)]
    if all(a == 255 for _, _, _, a in pixels):
        if all(r == g == b for r, g, b, _ in pixels):
            rgba = rgba.convert("L")
        else:
            rgba = rgba.convert("RGB")
    rgba.save(path, optimize=True)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(directory)):
        stem, extension = os.path.splitext(name)
        if extension not in (".tif", ".tiff"):
            continue
        stored, upright = decoded(os.path.join(directory, name))
        smallest_png(stored, os.path.join(directory, stem + ".stored.png"))
        if upright is not None:
            smallest_png(upright, os.path.join(directory, stem + ".upright.png"))
        print(f"{name}: {stored.size[0]}x{stored.size[1]} {stored.mode}")


if __name__ == "__main__":
    main()
