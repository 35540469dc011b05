#!/usr/bin/env python3
"""Writes the decoder test images into OUTDIR, each with the RGBA8 pixels it must decode to.

JPEG files come from cjpeg (libjpeg-turbo-progs) fed a PPM/PGM written here; their expected pixels
come from djpeg's PNM output (same library, a different code path: its own source manager and
color-conversion setup), so the comparison checks our libjpeg driving, exactly.

For every image NAME.<png|gif> there is NAME.rgba: width and height as two big-endian uint32, then
width * height * 4 bytes (straight alpha). The expected pixels are computed from the samples this
script encoded, by the PNG and GIF specifications' rules, never by decoding with the library under
test. Only the standard library is used (zlib for PNG's deflate; the GIF LZW encoder is below).

Usage: make_test_images.py OUTDIR            (the test images)
       make_test_images.py --bench OUTDIR    (4000x3000 bench.png, .jpg, .webp, .bmp, .tif and -jpeg.tif)
"""
import os
import struct
import sys
import zlib


class Random:
    """A small deterministic generator (LCG) so the images are the same on every run."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self, bound):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) % bound


def seed_of(name):
    return zlib.crc32(name.encode())


def write_expected(path, width, height, rgba):
    with open(path, "wb") as f:
        f.write(struct.pack(">II", width, height))
        f.write(bytes(rgba))


# ---------------------------------------------------------------- PNG

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def pack_row(samples, depth):
    """Packs one row of samples (already flattened channels) at `depth` bits, big-endian."""
    if depth == 8:
        return bytes(samples)
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out = bytearray()
    acc, bits = 0, 0
    for s in samples:
        acc = (acc << depth) | s
        bits += depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_rows(rows, bpp):
    """Applies filter type (row index % 5) to each packed row, so all five filters are exercised."""
    out = bytearray()
    previous = bytes(len(rows[0])) if rows else b""
    for index, row in enumerate(rows):
        kind = index % 5
        out.append(kind)
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
            out.append((x - predictor) & 0xFF)
        previous = row
    return bytes(out)


def encode_png(width, height, color_type, depth, pixels, palette=None, trns=None, interlaced=False):
    """pixels[y][x] is a tuple of channel samples."""
    channels = CHANNELS[color_type]
    bpp = max(1, channels * depth // 8)
    raw = bytearray()
    passes = ADAM7 if interlaced else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, width, dx))
        ys = list(range(y0, height, dy))
        if not xs or not ys:
            continue
        rows = [pack_row([s for x in xs for s in pixels[y][x]], depth) for y in ys]
        raw += filter_rows(rows, bpp)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 1 if interlaced else 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    if palette is not None:
        png += chunk(b"PLTE", bytes(c for rgb in palette for c in rgb))
    if trns is not None:
        png += chunk(b"tRNS", trns)
    data = zlib.compress(bytes(raw), 9)
    # Split IDAT in two to exercise multi-chunk image data.
    half = len(data) // 2
    png += chunk(b"IDAT", data[:half]) + chunk(b"IDAT", data[half:]) + chunk(b"IEND", b"")
    return png


def to8(sample, depth):
    if depth == 16:
        return sample >> 8          # libpng's strip_16 keeps the high byte
    return sample * 255 // ((1 << depth) - 1)


def png_variant(name, color_type, depth, with_trns, interlaced, width=13, height=11):
    rnd = Random(seed_of(name))
    maximum = (1 << depth) - 1
    channels = CHANNELS[color_type]
    palette = trns = None
    if color_type == 3:
        count = min(1 << depth, 200)
        palette = [(rnd.next(256), rnd.next(256), rnd.next(256)) for _ in range(count)]
        pixels = [[(rnd.next(count),) for _ in range(width)] for _ in range(height)]
        if with_trns:
            # Fewer alpha entries than palette entries: the rest are opaque.
            alphas = [rnd.next(256) for _ in range(max(1, count // 2))]
            alphas[0] = 0
            trns = bytes(alphas)
    else:
        pixels = [[tuple(rnd.next(maximum + 1) for _ in range(channels)) for _ in range(width)] for _ in range(height)]
        if with_trns:
            # Make the transparent color occur: copy the first pixel to a few places.
            key = pixels[0][0]
            for y in range(0, height, 3):
                pixels[y][(y * 5) % width] = key
            trns = b"".join(struct.pack(">H", s) for s in key)
    rgba = []
    for row in pixels:
        for px in row:
            if color_type == 3:
                r, g, b = palette[px[0]]
                a = trns[px[0]] if trns is not None and px[0] < len(trns) else 255
            elif color_type in (0, 4):
                r = g = b = to8(px[0], depth)
                a = to8(px[1], depth) if color_type == 4 else 255
            else:
                r, g, b = (to8(s, depth) for s in px[:3])
                a = to8(px[3], depth) if color_type == 6 else 255
            if with_trns and color_type in (0, 2):
                key = struct.unpack(">" + "H" * channels, trns)
                a = 0 if tuple(px) == key else 255
            rgba += [r, g, b, a]
    data = encode_png(width, height, color_type, depth, pixels, palette, trns, interlaced)
    return data, width, height, rgba


PNG_VARIANTS = [
    (0, 1, False), (0, 2, False), (0, 4, False), (0, 8, False), (0, 16, False),
    (0, 1, True), (0, 8, True), (0, 16, True),
    (2, 8, False), (2, 16, False), (2, 8, True), (2, 16, True),
    (3, 1, False), (3, 2, False), (3, 4, False), (3, 8, False), (3, 2, True), (3, 8, True),
    (4, 8, False), (4, 16, False),
    (6, 8, False), (6, 16, False),
]

# ---------------------------------------------------------------- GIF


def lzw_encode(indices, min_code_size, clear_when_full=True):
    """GIF LZW. With clear_when_full False the table is left full (4096 codes) and coding goes on
    with 12-bit codes and no new entries (a "deferred clear", which decoders must follow)."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    acc, nbits = 0, 0

    def emit(code, size):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += size
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    def reset():
        return {(i,): i for i in range(clear)}, clear + 2, min_code_size + 1

    table, next_code, size = reset()
    emit(clear, size)
    current = ()
    for index in indices:
        candidate = current + (index,)
        if candidate in table:
            current = candidate
            continue
        emit(table[current], size)
        if not clear_when_full:
            if next_code < 4096:
                table[candidate] = next_code
                next_code += 1
                if next_code - 1 >= (1 << size) and size < 12:
                    size += 1
        elif next_code >= 4000:
            # Well before the 4096-entry limit: clear, so encoder and decoder never sit at the edge.
            emit(clear, size)
            table, next_code, size = reset()
        else:
            table[candidate] = next_code
            next_code += 1
            if next_code - 1 >= (1 << size) and size < 12:
                size += 1
        current = (index,)
    if current:
        emit(table[current], size)
    emit(end, size)
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)


def sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        piece = data[i:i + 255]
        out.append(len(piece))
        out += piece
    out.append(0)
    return bytes(out)


def gif_variant(name, canvas=(17, 13), frame=None, colors=16, transparent=None, interlaced=False,
                local_table=False, second_frame=False, solid_runs=False, clear_when_full=True):
    rnd = Random(seed_of(name))
    sw, sh = canvas
    left, top, fw, fh = frame if frame else (0, 0, sw, sh)
    # A first frame reaching past the logical screen grows the canvas (as Blink decodes it).
    cw, ch = max(sw, left + fw), max(sh, top + fh)
    depth_bits = max(1, (colors - 1).bit_length())
    table_size = 1 << depth_bits
    palette = [(rnd.next(256), rnd.next(256), rnd.next(256)) for _ in range(table_size)]
    if solid_runs:
        indices = [((x // 7) + (y // 5)) % colors for y in range(fh) for x in range(fw)]
    else:
        indices = [rnd.next(colors) for _ in range(fw * fh)]
    if transparent is not None:
        for i in range(0, len(indices), 4):
            indices[i] = transparent
    rgba = [0] * (cw * ch * 4)
    for i, index in enumerate(indices):
        x, y = left + i % fw, top + i // fw
        if x >= cw or y >= ch:
            continue
        if index == transparent:
            continue
        r, g, b = palette[index]
        rgba[(y * cw + x) * 4:(y * cw + x) * 4 + 4] = [r, g, b, 255]
    # Rows in file order: interlaced frames store passes 8/0, 8/4, 4/2, 2/1.
    if interlaced:
        order = [y for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for y in range(start, fh, step)]
    else:
        order = list(range(fh))
    stream = [indices[y * fw + x] for y in order for x in range(fw)]
    min_code_size = max(2, depth_bits)
    flags = 0x70 | (depth_bits - 1)
    data = b"GIF89a" + struct.pack("<HHBBB", sw, sh, (0x80 | flags) if not local_table else flags, 0, 0)
    if not local_table:
        data += bytes(c for rgb in palette for c in rgb)
    data += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"          # an application extension to skip
    if transparent is not None:
        data += b"\x21\xF9\x04" + struct.pack("<BHB", 0x01, 10, transparent) + b"\x00"
    image_flags = (0x40 if interlaced else 0) | ((0x80 | (depth_bits - 1)) if local_table else 0)
    data += b"\x2C" + struct.pack("<HHHHB", left, top, fw, fh, image_flags)
    if local_table:
        data += bytes(c for rgb in palette for c in rgb)
    data += bytes([min_code_size]) + sub_blocks(lzw_encode(stream, min_code_size, clear_when_full))
    if second_frame:
        # A second, different frame that must not show.
        data += b"\x2C" + struct.pack("<HHHHB", 0, 0, cw, ch, 0)
        data += bytes([min_code_size]) + sub_blocks(lzw_encode([1] * (cw * ch), min_code_size))
    data += b"\x3B"
    return data, cw, ch, rgba


GIF_VARIANTS = {
    "gif-basic": dict(),
    "gif-2colors": dict(colors=2),
    "gif-256colors-large": dict(canvas=(120, 90), colors=256),
    "gif-deferred-clear": dict(canvas=(120, 90), colors=256, clear_when_full=False),
    "gif-solid-runs": dict(canvas=(64, 40), solid_runs=True, colors=8),
    "gif-transparent": dict(transparent=3),
    "gif-interlaced": dict(canvas=(11, 19), interlaced=True),
    "gif-local-table": dict(local_table=True),
    "gif-offset-frame": dict(canvas=(20, 16), frame=(5, 3, 9, 7)),
    "gif-frame-past-canvas": dict(canvas=(12, 10), frame=(8, 6, 9, 7)),
    "gif-two-frames": dict(second_frame=True),
}


# ---------------------------------------------------------------- JPEG (through cjpeg / djpeg)


def write_pnm(path, width, height, gray, pixel):
    with open(path, "wb") as f:
        f.write(b"P5\n" if gray else b"P6\n")
        f.write(b"%d %d\n255\n" % (width, height))
        f.write(bytes(c for y in range(height) for x in range(width) for c in pixel(x, y)))


def read_pnm_as_rgba(data):
    # Header: magic, width, height, maxval, separated by whitespace; then exactly one whitespace
    # byte before the samples (which may themselves be whitespace-valued bytes).
    fields, position = [], 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        start = position
        while not data[position:position + 1].isspace():
            position += 1
        fields.append(data[start:position])
    magic, width, height = fields[0], int(fields[1]), int(fields[2])
    body = data[position + 1:]
    rgba = bytearray()
    if magic == b"P5":
        for v in body[:width * height]:
            rgba += bytes((v, v, v, 255))
    else:
        for i in range(width * height):
            rgba += body[i * 3:i * 3 + 3] + b"\xff"
    return width, height, rgba


JPEG_VARIANTS = {
    "jpeg-baseline": ([], False),
    "jpeg-progressive": (["-progressive"], False),
    "jpeg-grayscale": ([], True),
    "jpeg-progressive-grayscale": (["-progressive"], True),
    "jpeg-444": (["-sample", "1x1"], False),
    "jpeg-restart": (["-restart", "1", "-optimize"], False),
}


def jpeg_variants(out):
    import subprocess
    width, height = 61, 47     # not multiples of the 8/16-pixel blocks: edge handling matters
    for name, (options, gray) in JPEG_VARIANTS.items():
        rnd = Random(seed_of(name))
        source = os.path.join(out, name + (".pgm" if gray else ".ppm"))
        write_pnm(source, width, height, gray, lambda x, y: (
            ((x * 4 + rnd.next(9)) % 256,) if gray else
            ((x * 4 + rnd.next(9)) % 256, (y * 5) % 256, ((x + y) * 2 + rnd.next(5)) % 256)))
        jpeg = os.path.join(out, name + ".jpg")
        subprocess.run(["cjpeg", "-quality", "85"] + options + ["-outfile", jpeg, source], check=True)
        decoded = subprocess.run(["djpeg", "-pnm", jpeg], check=True, stdout=subprocess.PIPE).stdout
        w, h, rgba = read_pnm_as_rgba(decoded)
        write_expected(os.path.join(out, name + ".rgba"), w, h, rgba)
        os.remove(source)


def bench_images(out):
    """A 4000x3000 photo-like gradient with texture, as PNG (RGB, filter 0) and JPEG (cjpeg -quality 85)."""
    import subprocess
    width, height = 4000, 3000
    row_cache = []
    for y in range(height):
        base = bytes(((x * 255 // width) ^ (y & 31)) & 0xFF for x in range(0, width)) if y < 64 else None
        row_cache.append(base)
    rows = []
    for y in range(height):
        r = row_cache[y % 64]
        g = bytes(((y * 255 // height) + (x & 15)) & 0xFF for x in range(0, width, 1000)) * 1000
        b = r[::-1]
        rgb = bytearray(width * 3)
        rgb[0::3], rgb[1::3], rgb[2::3] = r, g[:width], b
        rows.append(bytes(rgb))
    raw = b"".join(b"\x00" + row for row in rows)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
    with open(os.path.join(out, "bench.png"), "wb") as f:
        f.write(png)
    ppm = os.path.join(out, "bench.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        for row in rows:
            f.write(row)
    subprocess.run(["cjpeg", "-quality", "85", "-outfile", os.path.join(out, "bench.jpg"), ppm], check=True)
    # The same pixels as WebP (cwebp -q 85, lossy), an uncompressed BMP (24-bit, bottom-up) and a TIFF
    # (RGB in 16-row strips, written here uncompressed, then LZW-compressed by tiffcp).
    subprocess.run(["cwebp", "-quiet", "-q", "85", ppm, "-o", os.path.join(out, "bench.webp")], check=True)
    stride = (width * 3 + 3) // 4 * 4
    with open(os.path.join(out, "bench.bmp"), "wb") as f:
        f.write(b"BM" + struct.pack("<IHHI", 54 + stride * height, 0, 0, 54))
        f.write(struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, stride * height, 2835, 2835, 0, 0))
        padding = b"\x00" * (stride - width * 3)
        for row in reversed(rows):
            bgr = bytearray(row)
            bgr[0::3], bgr[2::3] = row[2::3], row[0::3]
            f.write(bytes(bgr) + padding)
    plain = os.path.join(out, "bench-plain.tif")
    rows_per_strip = 16
    strips = [b"".join(rows[y:y + rows_per_strip]) for y in range(0, height, rows_per_strip)]
    entries = [(256, 4, [width]), (257, 4, [height]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
               (273, 4, None), (277, 3, [3]), (278, 4, [rows_per_strip]), (279, 4, [len(x) for x in strips])]
    ifd_size = 2 + len(entries) * 12 + 4
    external = b""
    external_start = 8 + ifd_size
    values = {}
    for tag, kind, vals in entries:
        if vals is not None and len(vals) * (2 if kind == 3 else 4) > 4:
            values[tag] = external_start + len(external)
            external += b"".join(struct.pack("<H" if kind == 3 else "<I", v) for v in vals)
    offsets_at = external_start + len(external)
    external += b"\x00" * (4 * len(strips))
    data_start = external_start + len(external)
    strip_offsets, position = [], data_start
    for strip in strips:
        strip_offsets.append(position)
        position += len(strip)
    external = external[:offsets_at - external_start] + b"".join(struct.pack("<I", o) for o in strip_offsets)
    ifd = struct.pack("<H", len(entries))
    for tag, kind, vals in entries:
        if tag == 273:
            ifd += struct.pack("<HHII", tag, 4, len(strips), offsets_at)
        elif tag in values:
            ifd += struct.pack("<HHII", tag, kind, len(vals), values[tag])
        else:
            packed = b"".join(struct.pack("<H" if kind == 3 else "<I", v) for v in vals)
            ifd += struct.pack("<HHI", tag, kind, len(vals)) + packed.ljust(4, b"\x00")
    ifd += struct.pack("<I", 0)
    with open(plain, "wb") as f:
        f.write(b"II*\x00" + struct.pack("<I", 8) + ifd + external + b"".join(strips))
    subprocess.run(["tiffcp", "-c", "lzw", plain, os.path.join(out, "bench.tif")], check=True)
    # The same strips JPEG-compressed (YCbCr), for the TIFF decode scaled per strip.
    subprocess.run(["tiffcp", "-c", "jpeg", plain, os.path.join(out, "bench-jpeg.tif")], check=True)
    os.remove(plain)
    os.remove(ppm)


def main():
    if sys.argv[1] == "--bench":
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        bench_images(out)
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for color_type, depth, with_trns in PNG_VARIANTS:
        for interlaced in (False, True):
            name = "png-ct%d-d%d%s%s" % (color_type, depth, "-trns" if with_trns else "", "-adam7" if interlaced else "")
            data, w, h, rgba = png_variant(name, color_type, depth, with_trns, interlaced)
            with open(os.path.join(out, name + ".png"), "wb") as f:
                f.write(data)
            write_expected(os.path.join(out, name + ".rgba"), w, h, rgba)
    for name, options in GIF_VARIANTS.items():
        data, w, h, rgba = gif_variant(name, **options)
        with open(os.path.join(out, name + ".gif"), "wb") as f:
            f.write(data)
        write_expected(os.path.join(out, name + ".rgba"), w, h, rgba)
    jpeg_variants(out)


if __name__ == "__main__":
    main()
