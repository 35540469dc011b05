// TIFF on libtiff: the first page, read from memory through libtiff's RGBA interface (every
// photometric interpretation, compression and layout libtiff reads), errors collected through
// per-open handlers (never stderr, never process-wide state), and a bound on libtiff's allocations.
// Gray, RGB and CMYK pages whose samples that interface would not turn into Pillow's pixels are read
// sample by sample instead (TIFFSamples.c), and pages of samples with no display levels are refused.
// A JPEG-compressed page asked for smaller decodes scaled by libjpeg instead (TIFFJPEGScaled.c).
#include "CImageCodecs.h"
#include "Message.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "PixelBuffer.h"
#include "TIFFJPEGScaled.h"
#include "TIFFSamples.h"

typedef struct {
    const uint8_t *data;
    toff_t length;
    toff_t position;
} memory_source;

static tmsize_t read_proc(thandle_t handle, void *buffer, tmsize_t size) {
    memory_source *source = handle;
    if (size <= 0 || source->position >= source->length) return 0;
    toff_t available = source->length - source->position;
    toff_t count = (toff_t)size < available ? (toff_t)size : available;
    memcpy(buffer, source->data + source->position, (size_t)count);
    source->position += count;
    return (tmsize_t)count;
}

static tmsize_t write_proc(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}

static toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
    memory_source *source = handle;
    toff_t base = whence == SEEK_CUR ? source->position : whence == SEEK_END ? source->length : 0;
    // Past the end is allowed (reads there return nothing); wrapping around is not.
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    source->position = base + offset;
    return source->position;
}

static int close_proc(thandle_t handle) { (void)handle; return 0; }
static toff_t size_proc(thandle_t handle) { return ((memory_source *)handle)->length; }

static int map_proc(thandle_t handle, void **base, toff_t *size) {
    memory_source *source = handle;
    *base = (void *)source->data;
    *size = source->length;
    return 1;
}

static void unmap_proc(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

/// Keeps libtiff's first error as the result's message.
static int keep_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)module;
    afi_result *result = user_data;
    if (result->message[0] == 0) vsnprintf(result->message, AFI_MESSAGE_CAPACITY, format, arguments);
    return 1;
}

static int ignore_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif; (void)user_data; (void)module; (void)format; (void)arguments;
    return 1;
}

/// Opens `source` for reading with handlers writing into `result` and libtiff's single allocations
/// bounded by `max_alloc` bytes.
static TIFF *open_memory(memory_source *source, afi_result *result, tmsize_t max_alloc) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, keep_error, result);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ignore_warning, NULL);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    TIFF *tif = TIFFClientOpenExt("memory", "rm", source, read_proc, write_proc, seek_proc, close_proc, size_proc,
                                  map_proc, unmap_proc, options);
    TIFFOpenOptionsFree(options);
    return tif;
}

/// A failure's status from libtiff's message: running out of data is truncation.
static afi_status failure(afi_result *result, const char *fallback) {
    if (result->message[0] == 0) snprintf(result->message, AFI_MESSAGE_CAPACITY, "%s", fallback);
    if (strstr(result->message, "Read error") || strstr(result->message, "Seek error")
        || strstr(result->message, "Cannot read") || strstr(result->message, "end of file"))
        return AFI_TRUNCATED;
    return AFI_CORRUPT;
}

/// AFI_OK when the current page is one a reader here takes: sample by sample (`samples` filled,
/// `*by_samples` 1) or through libtiff's RGBA interface. Otherwise the refusal, from the tags alone.
static afi_status check_readable(TIFF *tif, afi_tiff_samples *samples, int *by_samples, afi_result *result) {
    *by_samples = 0;
    afi_status supported = afi_tiff_check_supported(tif, result);
    if (supported != AFI_OK) return supported;
    if (afi_tiff_samples_layout(tif, samples)) {
        *by_samples = 1;
        return AFI_OK;
    }
    char reason[1024] = { 0 };
    if (TIFFRGBAImageOK(tif, reason)) return AFI_OK;
    snprintf(result->message, AFI_MESSAGE_CAPACITY, "%s", reason);
    // libtiff words what it does not implement "Sorry, can not handle ..."; anything else is a broken file.
    return strncmp(reason, "Sorry, can not handle", 21) == 0 ? AFI_UNSUPPORTED : AFI_CORRUPT;
}

afi_status afi_tiff_read_size(const uint8_t *data, size_t length, afi_result *result) {
    memset(result, 0, sizeof(*result));
    memory_source source = { data, length, 0 };
    TIFF *tif = open_memory(&source, result, 64 << 20);
    if (!tif) return failure(result, "not a readable TIFF");
    uint32_t width = 0, height = 0;
    int ok = TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) && TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    if (!ok || width == 0 || height == 0) {
        TIFFClose(tif);
        return failure(result, "the first page has no size");
    }
    result->width = width;
    result->height = height;
    afi_tiff_samples samples;
    int by_samples;
    afi_status readable = check_readable(tif, &samples, &by_samples, result);
    TIFFClose(tif);
    return readable;
}

afi_status afi_tiff_decode(const uint8_t *data, size_t length, uint64_t max_pixels, unsigned scale_eighths,
                           uint8_t **out_pixels, afi_result *result) {
    memset(result, 0, sizeof(*result));
    *out_pixels = NULL;
    memory_source source = { data, length, 0 };
    // libtiff's largest single allocation is a decoded strip or tile: at most 8 bytes a pixel of the
    // page (16-bit RGBA), so the pixel limit bounds it.
    uint64_t bound = max_pixels > (UINT64_MAX - (1u << 20)) / 8 ? UINT64_MAX : max_pixels * 8 + (1u << 20);
    tmsize_t max_alloc = bound > (uint64_t)INT64_MAX ? (tmsize_t)INT64_MAX : (tmsize_t)bound;
    TIFF *tif = open_memory(&source, result, max_alloc);
    if (!tif) return failure(result, "not a readable TIFF");
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)
        || width == 0 || height == 0) {
        TIFFClose(tif);
        return failure(result, "the first page has no size");
    }
    result->width = width;
    result->height = height;
    if ((uint64_t)width * height > max_pixels) {
        TIFFClose(tif);
        return AFI_TOO_LARGE;
    }
    // The pixel buffer's size must fit in size_t (a limit near 2^64 pixels would let it wrap).
    if ((uint64_t)width * height > SIZE_MAX / 4) {
        TIFFClose(tif);
        return AFI_OUT_OF_MEMORY;
    }
    afi_tiff_samples samples;
    int by_samples;
    afi_status readable = check_readable(tif, &samples, &by_samples, result);
    if (readable != AFI_OK) {
        TIFFClose(tif);
        return readable;
    }
    size_t count = (size_t)width * height;
    if (by_samples) {
        uint8_t *pixels = afi_alloc_pixels(count * 4);
        afi_status status = pixels ? afi_tiff_read_samples(tif, &samples, width, height, max_alloc, pixels, result)
                                   : AFI_OUT_OF_MEMORY;
        TIFFClose(tif);
        if (status != AFI_OK) {
            free(pixels);
            return status == AFI_CORRUPT ? failure(result, "the pixels could not be read") : status;
        }
        *out_pixels = pixels;
        return AFI_OK;
    }
    // Smaller than stored: JPEG strips and tiles decode scaled with libjpeg (TIFFJPEGScaled.c). Any
    // other page, and any failure there, is read at full size below.
    if (scale_eighths >= 1 && scale_eighths < 8) {
        if (afi_tiff_decode_jpeg_scaled(tif, data, length, width, height, scale_eighths, out_pixels, result)) {
            TIFFClose(tif);
            return AFI_OK;
        }
        result->message[0] = 0;
    }
    uint32_t *raster = malloc(count * 4);
    if (!raster) {
        TIFFClose(tif);
        return AFI_OUT_OF_MEMORY;
    }
    // The pixels as stored, row 0 first: asked in the file's own orientation, libtiff flips nothing
    // (ImageDecoder reads the Orientation tag itself and applies it when asked).
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    if (orientation < ORIENTATION_TOPLEFT || orientation > ORIENTATION_LEFTBOT) orientation = ORIENTATION_TOPLEFT;
    int ok = TIFFReadRGBAImageOriented(tif, width, height, raster, orientation, 0);
    TIFFClose(tif);
    if (!ok) {
        free(raster);
        return failure(result, "the pixels could not be read");
    }
    // libtiff packs A<<24 | B<<16 | G<<8 | R with alpha associated (premultiplied): unpack to RGBA bytes
    // with straight alpha.
    uint8_t *pixels = (uint8_t *)raster;
    for (size_t index = 0; index < count; index++) {
        uint32_t value = raster[index];
        uint8_t red = value & 0xFF, green = (value >> 8) & 0xFF, blue = (value >> 16) & 0xFF, alpha = value >> 24;
        if (alpha != 0 && alpha != 255) {
            red = (uint8_t)(red >= alpha ? 255 : (red * 255u + alpha / 2) / alpha);
            green = (uint8_t)(green >= alpha ? 255 : (green * 255u + alpha / 2) / alpha);
            blue = (uint8_t)(blue >= alpha ? 255 : (blue * 255u + alpha / 2) / alpha);
        }
        uint8_t *pixel = pixels + index * 4;
        pixel[0] = red;
        pixel[1] = green;
        pixel[2] = blue;
        pixel[3] = alpha;
    }
    *out_pixels = pixels;
    return AFI_OK;
}
