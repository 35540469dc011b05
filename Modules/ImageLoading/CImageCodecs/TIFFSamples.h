#ifndef AF_CIMAGECODECS_TIFFSAMPLES_H
#define AF_CIMAGECODECS_TIFFSAMPLES_H
// Internal: TIFF pages read sample by sample (TIFFSamples.c), and the pages the decoder refuses.
#include <stddef.h>
#include <stdint.h>
#include <tiffio.h>
#include "CImageCodecs.h"

typedef enum { AFI_TIFF_GRAY, AFI_TIFF_RGB, AFI_TIFF_CMYK } afi_tiff_colour;
typedef enum { AFI_TIFF_NO_ALPHA, AFI_TIFF_STRAIGHT_ALPHA, AFI_TIFF_PREMULTIPLIED_ALPHA } afi_tiff_alpha;

/// What a page read here holds: its colour samples first, then an optional alpha sample, then
/// samples it ignores.
typedef struct {
    afi_tiff_colour colour;
    uint16_t colour_samples;     // 1 (gray), 3 (RGB) or 4 (CMYK)
    afi_tiff_alpha alpha;        // the sample right after the colour ones, when there is one
    uint16_t bits;               // 8, 12 or 16 per sample
    uint16_t samples_per_pixel;
    int separate;                // one plane per sample
    int tiled;
} afi_tiff_samples;

/// AFI_UNSUPPORTED with the reason in `result` when the current page's samples are of a kind the
/// decoder refuses (floating-point, signed above 8 bits, more than 16 bits or a depth neither reader
/// takes, CIE L*a*b*, JPEG of other than 8 bits); AFI_OK otherwise. Reads tags only.
afi_status afi_tiff_check_supported(TIFF *tif, afi_result *result);

/// 1 with `samples` filled when the current page is one read here rather than through libtiff's RGBA
/// interface: gray or RGB of 12 or 16 bits, gray or RGB with extra samples, and CMYK of 8, 12 or 16
/// bits without alpha. 0 otherwise.
int afi_tiff_samples_layout(TIFF *tif, afi_tiff_samples *samples);

/// Reads the current page (`width` x `height`, checked against the pixel limit) into `pixels`
/// (width * height * 4 bytes, RGBA8, straight alpha, rows as stored). Each strip or tile libtiff
/// decompresses may take at most `max_piece` bytes. AFI_OK, AFI_OUT_OF_MEMORY, or AFI_CORRUPT with the
/// reason in `result` (libtiff's own message when libtiff failed, which may tell a truncation).
afi_status afi_tiff_read_samples(TIFF *tif, const afi_tiff_samples *samples, uint32_t width, uint32_t height,
                                 tmsize_t max_piece, uint8_t *pixels, afi_result *result);
#endif
