#ifndef AF_CIMAGECODECS_TIFFJPEGSCALED_H
#define AF_CIMAGECODECS_TIFFJPEGSCALED_H
// Internal: a JPEG-compressed TIFF page decoded at a reduced DCT scale (TIFFJPEGScaled.c).
#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>
#include "CImageCodecs.h"

/// Decodes the current page of `tif` (read from `data`/`length`, `width` x `height`, already checked
/// against the pixel limit) at `scale_eighths`/8 of its size, rows as stored. Returns 1 with
/// `*out_pixels` (RGBA8, opaque) and the scaled size in `result`; 0 when the page is not a layout it
/// reads or anything failed, with nothing allocated: the caller then reads the page at full size.
int afi_tiff_decode_jpeg_scaled(TIFF *tif, const uint8_t *data, size_t length, uint32_t width, uint32_t height,
                                unsigned scale_eighths, uint8_t **out_pixels, afi_result *result);
#endif
