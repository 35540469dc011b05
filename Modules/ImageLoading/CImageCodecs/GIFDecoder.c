// The first frame of a GIF, decoded by our own LZW decoder. Every read is checked against the end
// of the input and every table index against the table's size: the input is untrusted.
#include <stdlib.h>
#include <string.h>
#include "CImageCodecs.h"
#include "Message.h"
#include "PixelBuffer.h"

enum { LZW_MAX_CODES = 4096, LZW_MAX_BITS = 12 };

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} gif_cursor;

static int read_byte(gif_cursor *c, uint8_t *out) {
    if (c->offset >= c->length) return 0;
    *out = c->data[c->offset++];
    return 1;
}

static int read_u16(gif_cursor *c, uint16_t *out) {
    if (c->length - c->offset < 2) return 0;
    *out = (uint16_t)(c->data[c->offset] | (c->data[c->offset + 1] << 8));
    c->offset += 2;
    return 1;
}

static int skip(gif_cursor *c, size_t count) {
    if (c->length - c->offset < count) return 0;
    c->offset += count;
    return 1;
}

/// Skips a chain of data sub-blocks (length byte, bytes; a zero length ends it).
static int skip_sub_blocks(gif_cursor *c) {
    for (;;) {
        uint8_t size;
        if (!read_byte(c, &size)) return 0;
        if (size == 0) return 1;
        if (!skip(c, size)) return 0;
    }
}

/// Where frame pixel number `index` lands: its row, with interlaced frames stored in four passes.
static uint32_t frame_row(uint32_t sequence_row, uint32_t height, int interlaced) {
    if (!interlaced) return sequence_row;
    // Pass 1: every 8th row from 0; pass 2: every 8th from 4; pass 3: every 4th from 2; pass 4: every 2nd from 1.
    uint32_t pass1 = (height + 7) / 8, pass2 = (height + 3) / 8, pass3 = (height + 1) / 4;
    if (sequence_row < pass1) return sequence_row * 8;
    sequence_row -= pass1;
    if (sequence_row < pass2) return sequence_row * 8 + 4;
    sequence_row -= pass2;
    if (sequence_row < pass3) return sequence_row * 4 + 2;
    sequence_row -= pass3;
    return sequence_row * 2 + 1;
}

typedef struct {
    uint8_t *canvas;             // RGBA8, canvas_width x canvas_height
    uint32_t canvas_width, canvas_height;
    uint32_t left, top, width, height;
    int interlaced;
    const uint8_t *palette;      // RGB triples; NULL: no colour table, index i is gray level i
    unsigned palette_size;
    int transparent_index;       // -1 when none
    uint64_t written;            // frame pixels produced so far
} frame_target;

static void put_pixel(frame_target *t, uint16_t index) {
    uint64_t total = (uint64_t)t->width * t->height;
    if (t->written >= total) { t->written++; return; }   // surplus data is ignored, as browsers do
    uint32_t fx = (uint32_t)(t->written % t->width);
    uint32_t fy = frame_row((uint32_t)(t->written / t->width), t->height, t->interlaced);
    t->written++;
    uint64_t x = (uint64_t)t->left + fx, y = (uint64_t)t->top + fy;
    if (x >= t->canvas_width || y >= t->canvas_height) return;   // clipped to the logical screen
    uint8_t *p = t->canvas + ((size_t)y * t->canvas_width + (size_t)x) * 4;
    if ((int)index == t->transparent_index) { p[0] = p[1] = p[2] = p[3] = 0; return; }
    if (!t->palette && index < 256) {
        p[0] = p[1] = p[2] = (uint8_t)index;   // no colour table at all: grayscale, as Pillow decodes it
    } else if (t->palette && index < t->palette_size) {
        p[0] = t->palette[index * 3]; p[1] = t->palette[index * 3 + 1]; p[2] = t->palette[index * 3 + 2];
    } else {
        p[0] = p[1] = p[2] = 0;  // an index past the table: black, as decoders commonly do
    }
    p[3] = 255;
}

/// Decodes the LZW stream held in `stream` (sub-blocks already joined) into `t`.
static afi_status decode_lzw(const uint8_t *stream, size_t length, unsigned min_code_size, frame_target *t,
                             afi_result *result) {
    // Literals reach 2047 with a minimum code size of 11: suffixes are 16-bit.
    uint16_t prefix[LZW_MAX_CODES];
    uint16_t suffix[LZW_MAX_CODES];
    uint16_t first_byte[LZW_MAX_CODES];   // the first literal of each code's string
    uint16_t stack[LZW_MAX_CODES];
    const unsigned clear = 1u << min_code_size, end = clear + 1;
    unsigned code_size = min_code_size + 1, next_code = clear + 2;
    int previous = -1;
    uint32_t bit_buffer = 0;
    unsigned bit_count = 0;
    size_t position = 0;
    const uint64_t total = (uint64_t)t->width * t->height;

    for (unsigned i = 0; i < clear; i++) { prefix[i] = 0; suffix[i] = (uint16_t)i; first_byte[i] = (uint16_t)i; }

    while (t->written < total) {
        while (bit_count < code_size) {
            if (position >= length) return afi_fail(result, AFI_TRUNCATED, "GIF image data ends early");
            bit_buffer |= (uint32_t)stream[position++] << bit_count;
            bit_count += 8;
        }
        unsigned code = bit_buffer & ((1u << code_size) - 1);
        bit_buffer >>= code_size;
        bit_count -= code_size;

        if (code == clear) {
            code_size = min_code_size + 1;
            next_code = clear + 2;
            previous = -1;
            continue;
        }
        if (code == end) break;
        if (previous < 0) {
            if (code >= clear) return afi_fail(result, AFI_CORRUPT, "GIF LZW stream starts with an undefined code");
            put_pixel(t, (uint16_t)code);
            previous = (int)code;
            continue;
        }
        unsigned in_code = code;
        unsigned depth = 0;
        if (code > next_code || (code == next_code && next_code >= LZW_MAX_CODES)) {
            return afi_fail(result, AFI_CORRUPT, "GIF LZW code out of range");
        }
        if (code == next_code) {
            // The code being defined right now (KwKwK): previous string plus its own first byte.
            stack[depth++] = first_byte[previous];
            code = (unsigned)previous;
        }
        while (code >= clear) {
            if (depth >= LZW_MAX_CODES) return afi_fail(result, AFI_CORRUPT, "GIF LZW chain too long");
            stack[depth++] = suffix[code];
            code = prefix[code];
        }
        if (depth >= LZW_MAX_CODES) return afi_fail(result, AFI_CORRUPT, "GIF LZW chain too long");
        stack[depth++] = (uint16_t)code;
        uint16_t head = (uint16_t)code;
        while (depth > 0) put_pixel(t, stack[--depth]);

        if (next_code < LZW_MAX_CODES) {
            prefix[next_code] = (uint16_t)previous;
            suffix[next_code] = head;
            first_byte[next_code] = first_byte[previous];
            next_code++;
            // Wider codes once the table fills the current width. Written as a mask test so a minimum code
            // size of 1 (whose table starts at 4, already 2^2) first widens at 8, as browsers do.
            if ((next_code & ((1u << code_size) - 1)) == 0 && code_size < LZW_MAX_BITS) code_size++;
        }
        previous = (int)in_code;
    }
    if (t->written < total) return afi_fail(result, AFI_TRUNCATED, "GIF image data ends before the frame is complete");
    return AFI_OK;
}

/// Everything before the first frame's pixels: the logical screen, the global colour table, the
/// graphic control's transparent index and the first image descriptor; the canvas is the screen grown
/// to hold the frame (as Blink does: this also makes a 0x0 screen usable).
typedef struct {
    const uint8_t *global_palette;
    unsigned global_size;
    int transparent_index;
    uint16_t left, top, width, height;
    uint8_t image_flags;
    uint32_t canvas_width, canvas_height;
} gif_layout;

static afi_status gif_read_layout(gif_cursor *c, gif_layout *l, afi_result *result) {
    result->width = 0; result->height = 0; result->message[0] = 0;
    if (c->length < 6) return afi_fail(result, AFI_TRUNCATED, "GIF header ends early");
    if (memcmp(c->data, "GIF87a", 6) != 0 && memcmp(c->data, "GIF89a", 6) != 0) {
        return afi_fail(result, AFI_CORRUPT, "not a GIF signature");
    }
    c->offset = 6;
    uint16_t screen_width, screen_height;
    uint8_t flags, background, aspect;
    if (!read_u16(c, &screen_width) || !read_u16(c, &screen_height) || !read_byte(c, &flags) ||
        !read_byte(c, &background) || !read_byte(c, &aspect)) {
        return afi_fail(result, AFI_TRUNCATED, "GIF screen descriptor ends early");
    }
    (void)background; (void)aspect;
    l->global_palette = NULL;
    l->global_size = 0;
    if (flags & 0x80) {
        l->global_size = 2u << (flags & 0x07);
        if (!skip(c, (size_t)l->global_size * 3)) return afi_fail(result, AFI_TRUNCATED, "GIF color table ends early");
        l->global_palette = c->data + c->offset - (size_t)l->global_size * 3;
    }

    l->transparent_index = -1;
    for (;;) {
        uint8_t introducer;
        if (!read_byte(c, &introducer)) return afi_fail(result, AFI_TRUNCATED, "GIF ends before its first image");
        if (introducer == 0x3B) return afi_fail(result, AFI_CORRUPT, "GIF has no image");
        if (introducer == 0x21) {
            uint8_t label;
            if (!read_byte(c, &label)) return afi_fail(result, AFI_TRUNCATED, "GIF extension ends early");
            if (label == 0xF9) {
                // Graphic control: size 4, packed flags, delay (2), transparent index, then a terminator.
                uint8_t size, packed, index;
                uint16_t delay;
                if (!read_byte(c, &size)) return afi_fail(result, AFI_TRUNCATED, "GIF extension ends early");
                if (size != 4) return afi_fail(result, AFI_CORRUPT, "GIF graphic control block has a wrong size");
                if (!read_byte(c, &packed) || !read_u16(c, &delay) || !read_byte(c, &index)) {
                    return afi_fail(result, AFI_TRUNCATED, "GIF extension ends early");
                }
                (void)delay;
                l->transparent_index = (packed & 0x01) ? index : -1;
            }
            if (!skip_sub_blocks(c)) return afi_fail(result, AFI_TRUNCATED, "GIF extension ends early");
            continue;
        }
        if (introducer != 0x2C) return afi_fail(result, AFI_CORRUPT, "GIF has an unknown block");
        break;
    }

    if (!read_u16(c, &l->left) || !read_u16(c, &l->top) || !read_u16(c, &l->width) || !read_u16(c, &l->height) ||
        !read_byte(c, &l->image_flags)) {
        return afi_fail(result, AFI_TRUNCATED, "GIF image descriptor ends early");
    }
    uint32_t frame_right = (uint32_t)l->left + l->width, frame_bottom = (uint32_t)l->top + l->height;
    l->canvas_width = frame_right > screen_width ? frame_right : screen_width;
    l->canvas_height = frame_bottom > screen_height ? frame_bottom : screen_height;
    result->width = l->canvas_width;
    result->height = l->canvas_height;
    if (l->canvas_width == 0 || l->canvas_height == 0) return afi_fail(result, AFI_CORRUPT, "GIF has an empty canvas");
    return AFI_OK;
}

afi_status afi_gif_read_size(const uint8_t *data, size_t length, afi_result *result) {
    gif_cursor c = { data, length, 0 };
    gif_layout layout;
    return gif_read_layout(&c, &layout, result);
}

afi_status afi_gif_decode(const uint8_t *data, size_t length, uint64_t max_pixels,
                          uint8_t **out_pixels, afi_result *result) {
    *out_pixels = NULL;
    gif_cursor c = { data, length, 0 };
    gif_layout l;
    afi_status status = gif_read_layout(&c, &l, result);
    if (status != AFI_OK) return status;
    // The canvas is what gets allocated, and what the error names.
    if ((uint64_t)l.canvas_width * l.canvas_height > max_pixels) {
        return afi_fail(result, AFI_TOO_LARGE, "GIF exceeds the pixel limit");
    }
    const uint8_t *palette = l.global_palette;
    unsigned palette_size = l.global_size;
    if (l.image_flags & 0x80) {
        palette_size = 2u << (l.image_flags & 0x07);
        if (!skip(&c, (size_t)palette_size * 3)) return afi_fail(result, AFI_TRUNCATED, "GIF color table ends early");
        palette = data + c.offset - (size_t)palette_size * 3;
    }
    uint8_t min_code_size;
    if (!read_byte(&c, &min_code_size)) return afi_fail(result, AFI_TRUNCATED, "GIF image data ends early");
    // 1 to 11 as browsers and Pillow accept (codes stay within 12 bits); 0 and 12 or more leave no room.
    if (min_code_size < 1 || min_code_size > 11) return afi_fail(result, AFI_CORRUPT, "GIF LZW code size out of range");

    // Join the sub-blocks: the joined stream is never longer than the input.
    uint8_t *stream = malloc(length - c.offset + 1);
    if (!stream) return afi_fail(result, AFI_OUT_OF_MEMORY, "out of memory for the GIF data");
    size_t stream_length = 0;
    for (;;) {
        uint8_t size;
        if (!read_byte(&c, &size)) break;      // a missing terminator: decode what is there
        if (size == 0) break;
        size_t available = c.length - c.offset;
        size_t take = size <= available ? size : available;
        memcpy(stream + stream_length, data + c.offset, take);
        stream_length += take;
        c.offset += take;
        if (take < size) break;
    }

    size_t canvas_bytes = (size_t)l.canvas_width * l.canvas_height * 4;
    uint8_t *canvas = afi_alloc_pixels(canvas_bytes);
    if (!canvas) { free(stream); return afi_fail(result, AFI_OUT_OF_MEMORY, "out of memory for the GIF pixels"); }
    memset(canvas, 0, canvas_bytes);   // outside the frame the canvas is transparent
    frame_target target = {
        .canvas = canvas, .canvas_width = l.canvas_width, .canvas_height = l.canvas_height,
        .left = l.left, .top = l.top, .width = l.width, .height = l.height,
        .interlaced = (l.image_flags & 0x40) != 0, .palette = palette, .palette_size = palette ? palette_size : 256,
        .transparent_index = l.transparent_index, .written = 0,
    };
    status = (l.width == 0 || l.height == 0) ? AFI_OK : decode_lzw(stream, stream_length, min_code_size, &target, result);
    free(stream);
    if (status != AFI_OK) { free(canvas); return status; }
    *out_pixels = canvas;
    return AFI_OK;
}
