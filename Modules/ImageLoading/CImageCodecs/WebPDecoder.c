// WebP on libwebp: lossy, lossless and alpha, and the first frame of an animation (libwebpdemux)
// placed on its canvas. A still image can be scaled by libwebp while it decodes.
#include "CImageCodecs.h"
#include "Message.h"
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

static afi_status status_of(VP8StatusCode code, afi_result *result) {
    switch (code) {
    case VP8_STATUS_OK: return AFI_OK;
    case VP8_STATUS_NOT_ENOUGH_DATA: return afi_fail(result, AFI_TRUNCATED, "the WebP data ends early");
    case VP8_STATUS_OUT_OF_MEMORY: return AFI_OUT_OF_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return afi_fail(result, AFI_CORRUPT, "a WebP feature libwebp does not support");
    default: return afi_fail(result, AFI_CORRUPT, "the WebP bitstream is invalid");
    }
}

/// The canvas size (an animation's) or the image's, and whether it is animated.
static afi_status read_canvas(const uint8_t *data, size_t length, uint32_t *width, uint32_t *height,
                              int *animated, afi_result *result) {
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, length, &features);
    if (code != VP8_STATUS_OK) return status_of(code, result);
    *animated = features.has_animation;
    if (!features.has_animation) {
        *width = (uint32_t)features.width;
        *height = (uint32_t)features.height;
        return AFI_OK;
    }
    WebPData webp = { data, length };
    WebPDemuxer *demux = WebPDemux(&webp);
    if (!demux) return afi_fail(result, AFI_CORRUPT, "the WebP animation's container is invalid");
    *width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    *height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    WebPDemuxDelete(demux);
    return AFI_OK;
}

/// Clears `result` and fills it with the canvas size; `animated` says whether it is an animation.
static afi_status read_header(const uint8_t *data, size_t length, int *animated, afi_result *result) {
    memset(result, 0, sizeof(*result));
    uint32_t width = 0, height = 0;
    afi_status status = read_canvas(data, length, &width, &height, animated, result);
    if (status != AFI_OK) return status;
    result->width = width;
    result->height = height;
    return AFI_OK;
}

afi_status afi_webp_read_size(const uint8_t *data, size_t length, afi_result *result) {
    int animated = 0;
    return read_header(data, length, &animated, result);
}

/// Decodes `length` bytes of one WebP bitstream (or a still file) into `pixels` (RGBA, `stride` bytes a
/// row), scaled to `width` x `height` when they differ from its own size.
static VP8StatusCode decode_into(const uint8_t *data, size_t length, uint8_t *pixels, size_t stride,
                                 int width, int height, int scale) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return VP8_STATUS_INVALID_PARAM;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    // What the rows need: a frame placed on a canvas ends short of the canvas's last full row.
    config.output.u.RGBA.size = stride * (size_t)(height - 1) + (size_t)width * 4;
    if (scale) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    VP8StatusCode code = WebPDecode(data, length, &config);
    WebPFreeDecBuffer(&config.output);
    return code;
}

afi_status afi_webp_decode(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t target_width,
                           uint32_t target_height, uint8_t **out_pixels, afi_result *result) {
    *out_pixels = NULL;
    int animated = 0;
    afi_status status = read_header(data, length, &animated, result);
    if (status != AFI_OK) return status;
    uint32_t width = result->width, height = result->height;
    if (width == 0 || height == 0) return afi_fail(result, AFI_CORRUPT, "the WebP image is empty");
    if ((uint64_t)width * height > max_pixels) return AFI_TOO_LARGE;
    // A still image scales while it decodes; an animation's first frame is placed on its canvas at
    // full size (the caller's box filter shrinks it).
    int scale = !animated && target_width > 0 && target_height > 0 && target_width <= width && target_height <= height
                && (target_width < width || target_height < height);
    uint32_t out_width = scale ? target_width : width, out_height = scale ? target_height : height;
    uint8_t *pixels = calloc((size_t)out_width * out_height, 4);
    if (!pixels) return AFI_OUT_OF_MEMORY;
    VP8StatusCode code;
    if (!animated) {
        code = decode_into(data, length, pixels, (size_t)out_width * 4, (int)out_width, (int)out_height, scale);
    } else {
        WebPData webp = { data, length };
        WebPDemuxer *demux = WebPDemux(&webp);
        WebPIterator frame;
        if (!demux || !WebPDemuxGetFrame(demux, 1, &frame)) {
            if (demux) WebPDemuxDelete(demux);
            free(pixels);
            return afi_fail(result, AFI_CORRUPT, "the WebP animation has no first frame");
        }
        if (frame.x_offset < 0 || frame.y_offset < 0 || frame.width <= 0 || frame.height <= 0
            || (uint64_t)frame.x_offset + (uint64_t)frame.width > width
            || (uint64_t)frame.y_offset + (uint64_t)frame.height > height) {
            WebPDemuxReleaseIterator(&frame);
            WebPDemuxDelete(demux);
            free(pixels);
            return afi_fail(result, AFI_CORRUPT, "the first frame lies outside the canvas");
        }
        // The first frame on a transparent canvas: blending over nothing is copying.
        uint8_t *origin = pixels + ((size_t)frame.y_offset * width + (size_t)frame.x_offset) * 4;
        code = decode_into(frame.fragment.bytes, frame.fragment.size, origin, (size_t)width * 4, frame.width,
                           frame.height, 0);
        WebPDemuxReleaseIterator(&frame);
        WebPDemuxDelete(demux);
    }
    if (code != VP8_STATUS_OK) {
        free(pixels);
        return status_of(code, result);
    }
    result->width = out_width;
    result->height = out_height;
    *out_pixels = pixels;
    return AFI_OK;
}
