// JPEG to RGBA8 with libjpeg-turbo. libjpeg reports errors through error_exit, which must not
// return: it longjmps back here. The source manager refuses to invent data at the end of the
// input (libjpeg's memory source would insert a fake EOI and return a gray-filled image), so a
// truncated file is an error.
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include "CImageCodecs.h"
#include "Message.h"
#include "JPEGSource.h"
#include "PixelBuffer.h"

// A progressive JPEG can carry thousands of tiny scans, each costing a full pass: bound them.
enum { MAX_PROGRESSIVE_SCANS = 1000 };

typedef struct {
    struct jpeg_progress_mgr base;
    j_decompress_ptr cinfo;
} scan_limit;

static void fail_with_message(j_common_ptr cinfo) {
    afi_jpeg_failure *failure = (afi_jpeg_failure *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(failure->message, sizeof failure->message, "%s", text);
    longjmp(failure->jump, 1);
}

static void ignore_message(j_common_ptr cinfo) { (void)cinfo; }

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fill_input_buffer(j_decompress_ptr cinfo) {
    afi_jpeg_failure *failure = (afi_jpeg_failure *)cinfo->err;
    failure->status = AFI_TRUNCATED;
    snprintf(failure->message, sizeof failure->message, "JPEG data ends early");
    longjmp(failure->jump, 1);
}

static void skip_input_data(j_decompress_ptr cinfo, long count) {
    if (count <= 0) return;
    struct jpeg_source_mgr *source = cinfo->src;
    if ((size_t)count > source->bytes_in_buffer) fill_input_buffer(cinfo);
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static void limit_scans(j_common_ptr common) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (cinfo->is_decompressor && cinfo->progressive_mode && cinfo->input_scan_number > MAX_PROGRESSIVE_SCANS) {
        afi_jpeg_failure *failure = (afi_jpeg_failure *)cinfo->err;
        failure->status = AFI_CORRUPT;
        snprintf(failure->message, sizeof failure->message, "JPEG has more than %d scans", MAX_PROGRESSIVE_SCANS);
        longjmp(failure->jump, 1);
    }
}

void afi_jpeg_attach_source(j_decompress_ptr cinfo, struct jpeg_source_mgr *source, const uint8_t *data, size_t length) {
    source->next_input_byte = data;
    source->bytes_in_buffer = length;
    source->init_source = init_source;
    source->fill_input_buffer = fill_input_buffer;
    source->skip_input_data = skip_input_data;
    source->resync_to_restart = jpeg_resync_to_restart;
    source->term_source = term_source;
    cinfo->src = source;
}

void afi_jpeg_install_error_handlers(afi_jpeg_failure *failure) {
    jpeg_std_error(&failure->base);
    failure->base.error_exit = fail_with_message;
    failure->base.output_message = ignore_message;
    failure->status = AFI_CORRUPT;
    failure->message[0] = 0;
}

afi_status afi_jpeg_read_size(const uint8_t *data, size_t length, afi_result *result) {
    result->width = 0; result->height = 0; result->message[0] = 0;
    struct jpeg_decompress_struct cinfo;
    afi_jpeg_failure failure;
    struct jpeg_source_mgr source;
    afi_jpeg_install_error_handlers(&failure);
    cinfo.err = &failure.base;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return afi_fail(result, failure.status, failure.message[0] ? failure.message : "JPEG header unreadable");
    }
    jpeg_create_decompress(&cinfo);
    afi_jpeg_attach_source(&cinfo, &source, data, length);
    jpeg_read_header(&cinfo, TRUE);
    result->width = cinfo.image_width;
    result->height = cinfo.image_height;
    jpeg_destroy_decompress(&cinfo);
    return AFI_OK;
}

/// CMYK to RGB in place within each row (4 bytes in, 4 bytes out). Adobe's writers store the
/// channels inverted (0 = full ink), which is what a file with an Adobe marker contains.
static void convert_cmyk_row(uint8_t *row, uint32_t width, int adobe_inverted) {
    for (uint32_t x = 0; x < width; x++) {
        uint8_t *p = row + (size_t)x * 4;
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (!adobe_inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        p[0] = (uint8_t)((c * k + 127) / 255);
        p[1] = (uint8_t)((m * k + 127) / 255);
        p[2] = (uint8_t)((y * k + 127) / 255);
        p[3] = 255;
    }
}

afi_status afi_jpeg_decode(const uint8_t *data, size_t length, uint64_t max_pixels, unsigned scale_eighths,
                           uint8_t **out_pixels, afi_result *result) {
    *out_pixels = NULL;
    result->width = 0; result->height = 0; result->message[0] = 0;
    if (length < 3 || data[0] != 0xFF || data[1] != 0xD8) {
        return afi_fail(result, length < 3 ? AFI_TRUNCATED : AFI_CORRUPT, "not a JPEG signature");
    }
    if (scale_eighths < 1 || scale_eighths > 8) scale_eighths = 8;
    struct jpeg_decompress_struct cinfo;
    afi_jpeg_failure failure;
    struct jpeg_source_mgr source;
    scan_limit progress;
    uint8_t *volatile pixels = NULL;
    afi_jpeg_install_error_handlers(&failure);
    cinfo.err = &failure.base;
    if (setjmp(failure.jump)) {
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return afi_fail(result, failure.status, failure.message[0] ? failure.message : "JPEG decoding failed");
    }
    jpeg_create_decompress(&cinfo);
    afi_jpeg_attach_source(&cinfo, &source, data, length);
    progress.base.progress_monitor = limit_scans;
    progress.cinfo = &cinfo;
    cinfo.progress = &progress.base;
    jpeg_read_header(&cinfo, TRUE);
    if ((uint64_t)cinfo.image_width * (uint64_t)cinfo.image_height > max_pixels) {
        result->width = cinfo.image_width; result->height = cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        return afi_fail(result, AFI_TOO_LARGE, "JPEG exceeds the pixel limit");
    }
    int is_cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    // libjpeg-turbo converts gray, RGB and YCbCr straight to RGBA; CMYK comes out as CMYK.
    cinfo.out_color_space = is_cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.scale_num = scale_eighths;
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4) {
        failure.status = AFI_CORRUPT;
        snprintf(failure.message, sizeof failure.message, "unsupported JPEG color space");
        longjmp(failure.jump, 1);
    }
    uint32_t width = cinfo.output_width, height = cinfo.output_height;
    size_t stride = (size_t)width * 4;
    pixels = afi_alloc_pixels(stride * height);
    if (!pixels) {
        failure.status = AFI_OUT_OF_MEMORY;
        snprintf(failure.message, sizeof failure.message, "out of memory for the JPEG pixels");
        longjmp(failure.jump, 1);
    }
    while (cinfo.output_scanline < height) {
        JSAMPROW row = pixels + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (is_cmyk) {
        for (uint32_t y = 0; y < height; y++) convert_cmyk_row(pixels + stride * y, width, cinfo.saw_Adobe_marker);
    }
    // Reading up to EOI is not needed for the pixels; abort frees libjpeg's state without demanding it.
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    result->width = width; result->height = height;
    *out_pixels = pixels;
    return AFI_OK;
}
