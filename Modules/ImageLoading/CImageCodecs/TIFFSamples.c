// TIFF pages read sample by sample where libtiff's RGBA interface would not give Pillow's pixels:
// it refuses 12-bit samples and 16-bit CMYK, rounds 16-bit samples where Pillow keeps the high byte,
// and hands alpha back premultiplied, so associated alpha came out rounded twice and unassociated
// alpha went through a premultiply-unpremultiply round trip. libtiff still decompresses each strip or
// tile (samples in host byte order); this file only places the samples and reduces them as Pillow
// does, so that its pixels are ours:
// - more than 8 bits: the 8 most significant (Pillow's 16-bit unpackers take the high byte);
// - associated alpha: each colour c becomes c * 255 / a truncated, at most 255; 0 everywhere where a is 0;
// - CMYK: each of R, G, B is (255 - K) - C * (255 - K) / 255, the division rounded as Pillow's MULDIV255.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "TIFFSamples.h"

static afi_status fail(afi_result *result, afi_status status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(result->message, AFI_MESSAGE_CAPACITY, format, arguments);
    va_end(arguments);
    return status;
}

afi_status afi_tiff_check_supported(TIFF *tif, afi_result *result) {
    uint16_t bits = 1, format = SAMPLEFORMAT_UINT, photometric = PHOTOMETRIC_MINISWHITE, compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    switch (photometric) {
    case PHOTOMETRIC_CIELAB:
    case PHOTOMETRIC_ICCLAB:
    case PHOTOMETRIC_ITULAB:
        // Pillow converts L*a*b* through LittleCMS's interpolated 8-bit transform, which differs from
        // the CIE formulas (and from libtiff's conversion) by up to 55 levels: no pixels rather than others.
        return fail(result, AFI_UNSUPPORTED, "CIE L*a*b* colour");
    case PHOTOMETRIC_LOGL:
    case PHOTOMETRIC_LOGLUV:
        return AFI_OK;  // libtiff's SGILog codec turns these into 8-bit colour itself
    default:
        break;
    }
    // Measurements, not display levels: no range to map to 8 bits.
    if (format == SAMPLEFORMAT_IEEEFP) return fail(result, AFI_UNSUPPORTED, "%u-bit floating-point samples", bits);
    if (format == SAMPLEFORMAT_COMPLEXINT || format == SAMPLEFORMAT_COMPLEXIEEEFP)
        return fail(result, AFI_UNSUPPORTED, "%u-bit complex samples", bits);
    if (format == SAMPLEFORMAT_INT && bits > 8) return fail(result, AFI_UNSUPPORTED, "%u-bit signed samples", bits);
    if (bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 12 && bits != 16)
        return fail(result, AFI_UNSUPPORTED, "%u-bit samples", bits);
    // libjpeg-turbo here decodes 8-bit JPEG only.
    if (compression == COMPRESSION_JPEG && bits != 8) return fail(result, AFI_UNSUPPORTED, "%u-bit JPEG compression", bits);
    return AFI_OK;
}

int afi_tiff_samples_layout(TIFF *tif, afi_tiff_samples *samples) {
    memset(samples, 0, sizeof(*samples));
    uint16_t photometric = 0, bits = 1, format = SAMPLEFORMAT_UINT, count = 1, planar = PLANARCONFIG_CONTIG;
    uint16_t compression = COMPRESSION_NONE, inkset = INKSET_CMYK, extra_count = 0;
    uint16_t *extra = NULL;
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) return 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &count);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if ((format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID) || (bits != 8 && bits != 12 && bits != 16)
        || compression == COMPRESSION_OJPEG) return 0;
    int needed;
    switch (photometric) {
    case PHOTOMETRIC_MINISBLACK:
        samples->colour = AFI_TIFF_GRAY;
        samples->colour_samples = 1;
        needed = bits > 8 || count > 1;
        break;
    case PHOTOMETRIC_RGB:
        samples->colour = AFI_TIFF_RGB;
        samples->colour_samples = 3;
        needed = bits > 8 || count > 3;
        break;
    case PHOTOMETRIC_SEPARATED:
        TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
        if (inkset != INKSET_CMYK) return 0;
        samples->colour = AFI_TIFF_CMYK;
        samples->colour_samples = 4;
        needed = 1;
        break;
    default:
        return 0;
    }
    if (!needed || count < samples->colour_samples) return 0;
    if (count > samples->colour_samples) {
        // As Pillow reads them: no ExtraSamples means the next sample is alpha (libtiff would call it
        // associated); "unspecified" is ignored; any value but 0 and 1 is unassociated alpha (Corel
        // Draw writes 999 for it).
        if (!TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) || extra_count == 0 || !extra) {
            samples->alpha = AFI_TIFF_STRAIGHT_ALPHA;
        } else if (extra[0] == EXTRASAMPLE_ASSOCALPHA) {
            samples->alpha = AFI_TIFF_PREMULTIPLIED_ALPHA;
        } else if (extra[0] != EXTRASAMPLE_UNSPECIFIED) {
            samples->alpha = AFI_TIFF_STRAIGHT_ALPHA;
        }
    }
    // CMYK with alpha stays with libtiff (Pillow does not read it).
    if (samples->colour == AFI_TIFF_CMYK && samples->alpha != AFI_TIFF_NO_ALPHA) return 0;
    samples->bits = bits;
    samples->samples_per_pixel = count;
    samples->separate = planar == PLANARCONFIG_SEPARATE && count > 1;
    samples->tiled = TIFFIsTiled(tif);
    return 1;
}

/// Sample `index` of a row of `bits`-bit samples (8, 16 in host order, or 12 packed high bits first).
static inline uint32_t sample_at(const uint8_t *row, uint64_t index, unsigned bits) {
    if (bits == 8) return row[index];
    if (bits == 16) {
        uint16_t value;
        memcpy(&value, row + index * 2, 2);
        return value;
    }
    uint64_t bit = index * 12;
    const uint8_t *bytes = row + bit / 8;
    return bit % 8 == 0 ? (uint32_t)bytes[0] << 4 | bytes[1] >> 4 : (uint32_t)(bytes[0] & 0x0F) << 8 | bytes[1];
}

/// Places one row of `columns` pixels of contiguous samples (`per_pixel` a pixel, the first `used` of
/// them read) into RGBA `target`: colour samples in channels 0.., alpha in 3. `bits` is a constant
/// at each call, so each depth gets a loop of its own.
static inline void place_contiguous(const uint8_t *source, uint8_t *target, uint32_t columns, unsigned per_pixel,
                                    unsigned used, unsigned colour_samples, unsigned bits) {
    // 8-bit RGBA, the common case with alpha: the bytes as they are.
    if (bits == 8 && per_pixel == 4 && used == 4) {
        memcpy(target, source, (size_t)columns * 4);
        return;
    }
    for (uint32_t column = 0; column < columns; column++) {
        uint64_t first = (uint64_t)column * per_pixel;
        for (unsigned sample = 0; sample < used; sample++) {
            unsigned channel = sample < colour_samples ? sample : 3;
            target[(size_t)column * 4 + channel] = (uint8_t)(sample_at(source, first + sample, bits) >> (bits - 8));
        }
    }
}

/// Places one row of one plane's samples into channel `channel` of RGBA `target`.
static inline void place_plane(const uint8_t *source, uint8_t *target, uint32_t columns, unsigned channel, unsigned bits) {
    for (uint32_t column = 0; column < columns; column++)
        target[(size_t)column * 4 + channel] = (uint8_t)(sample_at(source, column, bits) >> (bits - 8));
}

/// Pillow's a * b / 255, rounded (MULDIV255).
static inline unsigned times_over_255(unsigned a, unsigned b) {
    unsigned product = a * b + 128;
    return ((product >> 8) + product) >> 8;
}

afi_status afi_tiff_read_samples(TIFF *tif, const afi_tiff_samples *samples, uint32_t width, uint32_t height,
                                 tmsize_t max_piece, uint8_t *pixels, afi_result *result) {
    uint32_t piece_width = width, piece_height = height;
    tmsize_t piece_size, row_size;
    if (samples->tiled) {
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &piece_width) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &piece_height))
            return fail(result, AFI_CORRUPT, "a tiled page without its tile size");
        piece_size = TIFFTileSize(tif);
        row_size = TIFFTileRowSize(tif);
    } else {
        uint32_t rows = height;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        piece_height = rows == 0 || rows > height ? height : rows;
        piece_size = TIFFStripSize(tif);
        row_size = TIFFScanlineSize(tif);
    }
    if (piece_width == 0 || piece_height == 0 || piece_size <= 0 || row_size <= 0)
        return fail(result, AFI_CORRUPT, "strips or tiles of no size");
    if (piece_size > max_piece)
        return fail(result, AFI_CORRUPT, "a strip or tile of %lld bytes exceeds the limit of %lld bytes",
                    (long long)piece_size, (long long)max_piece);
    // Samples one row of a strip or tile carries (one plane's when separate), packed.
    unsigned per_pixel = samples->separate ? 1 : samples->samples_per_pixel;
    uint64_t piece_row_bytes = ((uint64_t)piece_width * per_pixel * samples->bits + 7) / 8;
    if (piece_row_bytes > (uint64_t)row_size || piece_height > (uint64_t)(piece_size / row_size))
        return fail(result, AFI_CORRUPT, "strips or tiles smaller than their rows");
    uint8_t *buffer = malloc((size_t)piece_size);
    if (!buffer) return AFI_OUT_OF_MEMORY;

    // Colour samples go to channels 0.., alpha to channel 3; planes past those are never read.
    unsigned used = samples->colour_samples + (samples->alpha != AFI_TIFF_NO_ALPHA);
    unsigned planes = samples->separate ? used : 1;
    unsigned bits = samples->bits, colour_samples = samples->colour_samples;
    for (uint64_t top = 0; top < height; top += piece_height) {
        uint32_t rows = (uint32_t)(height - top < piece_height ? height - top : piece_height);
        for (uint64_t left = 0; left < width; left += piece_width) {
            uint32_t columns = (uint32_t)(width - left < piece_width ? width - left : piece_width);
            for (unsigned plane = 0; plane < planes; plane++) {
                uint32_t piece = samples->tiled ? TIFFComputeTile(tif, (uint32_t)left, (uint32_t)top, 0, (uint16_t)plane)
                                                : TIFFComputeStrip(tif, (uint32_t)top, (uint16_t)plane);
                tmsize_t got = samples->tiled ? TIFFReadEncodedTile(tif, piece, buffer, piece_size)
                                              : TIFFReadEncodedStrip(tif, piece, buffer, piece_size);
                if (got < 0) {
                    free(buffer);
                    return AFI_CORRUPT;
                }
                uint64_t needed = (uint64_t)(rows - 1) * (uint64_t)row_size
                                  + ((uint64_t)columns * per_pixel * bits + 7) / 8;
                if ((uint64_t)got < needed) {
                    free(buffer);
                    return fail(result, AFI_CORRUPT, "strip or tile %u holds %lld bytes of %llu", piece, (long long)got,
                                (unsigned long long)needed);
                }
                for (uint32_t row = 0; row < rows; row++) {
                    const uint8_t *source = buffer + (size_t)row * (size_t)row_size;
                    uint8_t *target = pixels + (((size_t)top + row) * width + (size_t)left) * 4;
                    if (samples->separate) {
                        unsigned channel = plane < colour_samples ? plane : 3;
                        if (bits == 8) place_plane(source, target, columns, channel, 8);
                        else if (bits == 16) place_plane(source, target, columns, channel, 16);
                        else place_plane(source, target, columns, channel, 12);
                    } else if (bits == 8) {
                        place_contiguous(source, target, columns, per_pixel, used, colour_samples, 8);
                    } else if (bits == 16) {
                        place_contiguous(source, target, columns, per_pixel, used, colour_samples, 16);
                    } else {
                        place_contiguous(source, target, columns, per_pixel, used, colour_samples, 12);
                    }
                }
            }
        }
    }
    free(buffer);

    // RGB with unassociated alpha is final as placed.
    if (samples->colour == AFI_TIFF_RGB && samples->alpha == AFI_TIFF_STRAIGHT_ALPHA) return AFI_OK;
    size_t count = (size_t)width * height;
    for (size_t index = 0; index < count; index++) {
        uint8_t *pixel = pixels + index * 4;
        if (samples->colour == AFI_TIFF_GRAY) {
            pixel[1] = pixel[2] = pixel[0];
        } else if (samples->colour == AFI_TIFF_CMYK) {
            unsigned inverse_black = 255u - pixel[3];
            for (int channel = 0; channel < 3; channel++)
                pixel[channel] = (uint8_t)(inverse_black - times_over_255(pixel[channel], inverse_black));
        }
        if (samples->alpha == AFI_TIFF_NO_ALPHA) {
            pixel[3] = 255;
        } else if (samples->alpha == AFI_TIFF_PREMULTIPLIED_ALPHA && pixel[3] < 255) {
            unsigned alpha = pixel[3];
            for (int channel = 0; channel < 3; channel++) {
                unsigned straight = alpha == 0 ? 0 : pixel[channel] * 255u / alpha;
                pixel[channel] = (uint8_t)(straight > 255 ? 255 : straight);
            }
        }
    }
    return AFI_OK;
}
