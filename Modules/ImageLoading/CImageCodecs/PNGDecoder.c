// PNG to RGBA8 with libpng. libpng reports errors by longjmp to the setjmp below; every object the
// jump could leak is reachable from `state` so the error path frees it.
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include "CImageCodecs.h"
#include "Message.h"
#include "PixelBuffer.h"

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
    afi_status status;           // why libpng's error handler was called, when we know better
    char message[AFI_MESSAGE_CAPACITY];
} png_reader_state;

const char *afi_png_version(void) {
    return png_get_libpng_ver(NULL);
}

static void read_from_memory(png_structp png, png_bytep out, size_t count) {
    png_reader_state *state = png_get_io_ptr(png);
    if (count > state->length - state->offset) {
        state->status = AFI_TRUNCATED;
        png_error(png, "PNG data ends early");
    }
    memcpy(out, state->data + state->offset, count);
    state->offset += count;
}

static void record_error(png_structp png, png_const_charp message) {
    png_reader_state *state = png_get_error_ptr(png);
    snprintf(state->message, sizeof state->message, "%s", message);
    png_longjmp(png, 1);
}

static void ignore_warning(png_structp png, png_const_charp message) {
    (void)png; (void)message;
}

afi_status afi_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels,
                          uint8_t **out_pixels, afi_result *result) {
    *out_pixels = NULL;
    result->width = 0; result->height = 0; result->message[0] = 0;
    if (length < 8 || png_sig_cmp(data, 0, 8) != 0) {
        return afi_fail(result, length < 8 ? AFI_TRUNCATED : AFI_CORRUPT, "not a PNG signature");
    }
    png_reader_state state = { .data = data, .length = length, .offset = 0, .status = AFI_CORRUPT };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, record_error, ignore_warning);
    if (!png) return afi_fail(result, AFI_OUT_OF_MEMORY, "png_create_read_struct failed");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return afi_fail(result, AFI_OUT_OF_MEMORY, "png_create_info_struct failed");
    }
    // Volatile: modified between setjmp and a possible longjmp.
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return afi_fail(result, state.status, state.message[0] ? state.message : "PNG decoding failed");
    }
    png_set_read_fn(png, &state, read_from_memory);
    png_read_info(png, info);

    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    if ((uint64_t)width * (uint64_t)height > max_pixels) {
        png_destroy_read_struct(&png, &info, NULL);
        result->width = width; result->height = height;
        return afi_fail(result, AFI_TOO_LARGE, "PNG exceeds the pixel limit");
    }
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);

    // Every input becomes 8-bit RGBA: palette -> RGB, gray < 8 bits -> 8, tRNS -> alpha.
    png_set_expand(png);
    if (bit_depth == 16) png_set_strip_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS)) {
        png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        state.status = AFI_CORRUPT;
        png_error(png, "unexpected row size after transformations");
    }

    size_t stride = (size_t)width * 4;
    pixels = afi_alloc_pixels(stride * height);
    rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!pixels || !rows) {
        state.status = AFI_OUT_OF_MEMORY;
        png_error(png, "out of memory for the PNG pixels");
    }
    for (uint32_t y = 0; y < height; y++) rows[y] = pixels + stride * y;
    // Complete pixel data is enough: chunks after the image data (text, time, IEND) are not
    // required, as browsers display a PNG that lost its IEND.
    png_read_image(png, rows);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    result->width = width; result->height = height;
    *out_pixels = pixels;
    return AFI_OK;
}
