// JPEG-compressed TIFFs (compression 7, TIFF Technical Note 2) decoded smaller than stored. Each strip
// or tile is a JPEG stream of its own, abbreviated when the JPEGTables tag holds the shared tables, so
// libjpeg's DCT scaling reads it at scale/8 and each scaled piece is copied to its scaled origin.
// libtiff's RGBA interface cannot do this: it always decodes full size. Only layouts where every
// piece starts on a whole scaled pixel are taken; any other layout, and any error, hands the page
// back to the full-size path, which reports errors as before.
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include "JPEGSource.h"
#include "PixelBuffer.h"
#include "TIFFJPEGScaled.h"

typedef struct {
    TIFF *tif;
    const uint8_t *tables;        // the JPEGTables stream (SOI, tables, EOI), or NULL
    uint32_t tables_length;
    // What the streams hold, from Photometric: libtiff writes no JFIF or Adobe marker, and libjpeg's
    // guess from component ids is not the TIFF's word.
    J_COLOR_SPACE color_space;
    int components;
    int tiled;
    uint32_t width, height;               // the page
    uint32_t piece_width, piece_height;   // a strip: the page's width by RowsPerStrip; a tile: its size
    uint32_t across, down;                // pieces in a row of the page, in a column
    unsigned eighths;
    uint32_t out_width, out_height;       // the page scaled, rounded up as libjpeg rounds
} layout;

static uint32_t scaled(uint64_t size, unsigned eighths) { return (uint32_t)((size * eighths + 7) / 8); }

/// Fills `page` when the first page is one this reader takes: JPEG, one plane, 8 bits, YCbCr, RGB or
/// gray without extra samples, pieces whose scaled origins are whole pixels.
static int read_layout(TIFF *tif, uint32_t width, uint32_t height, unsigned eighths, layout *page) {
    memset(page, 0, sizeof(*page));
    uint16_t compression = 0, planar = PLANARCONFIG_CONTIG, bits = 1, samples = 1, photometric = 0;
    if (!TIFFGetField(tif, TIFFTAG_COMPRESSION, &compression) || compression != COMPRESSION_JPEG) return 0;
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) return 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
    if (planar != PLANARCONFIG_CONTIG || bits != 8) return 0;
    switch (photometric) {
    case PHOTOMETRIC_YCBCR: page->color_space = JCS_YCbCr; page->components = 3; break;
    case PHOTOMETRIC_RGB: page->color_space = JCS_RGB; page->components = 3; break;
    case PHOTOMETRIC_MINISBLACK: page->color_space = JCS_GRAYSCALE; page->components = 1; break;
    default: return 0;
    }
    if (samples != page->components) return 0;
    uint32_t tables_length = 0;
    const void *tables = NULL;
    if (TIFFGetField(tif, TIFFTAG_JPEGTABLES, &tables_length, &tables) && tables && tables_length > 0) {
        page->tables = tables;
        page->tables_length = tables_length;
    }
    page->tiled = TIFFIsTiled(tif);
    if (page->tiled) {
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &page->piece_width)
            || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &page->piece_height)) return 0;
    } else {
        uint32_t rows = height;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        page->piece_width = width;
        page->piece_height = rows < height ? rows : height;
    }
    // No JPEG stream is larger than libjpeg's limit: this also bounds the row buffer.
    if (page->piece_width == 0 || page->piece_height == 0 || page->piece_width > JPEG_MAX_DIMENSION
        || page->piece_height > JPEG_MAX_DIMENSION) return 0;
    page->across = (uint32_t)(((uint64_t)width + page->piece_width - 1) / page->piece_width);
    page->down = (uint32_t)(((uint64_t)height + page->piece_height - 1) / page->piece_height);
    uint64_t pieces = (uint64_t)page->across * page->down;
    if (pieces != (page->tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif))) return 0;
    // Piece (i, j) starts at (i * piece_width, j * piece_height) times eighths/8: a whole pixel for
    // every i (j) only when the piece size times eighths is a multiple of 8, or there is one piece.
    if (page->across > 1 && (uint64_t)page->piece_width * eighths % 8 != 0) return 0;
    if (page->down > 1 && (uint64_t)page->piece_height * eighths % 8 != 0) return 0;
    page->tif = tif;
    page->width = width;
    page->height = height;
    page->eighths = eighths;
    page->out_width = scaled(width, eighths);
    page->out_height = scaled(height, eighths);
    return 1;
}

/// Decodes piece `index` at the page's scale into its place in `pixels` (through `row` when it
/// overhangs the page's right edge). libjpeg's errors longjmp; 0 when the stream does not fit the piece.
static int decode_piece(j_decompress_ptr cinfo, struct jpeg_source_mgr *source, const layout *page, uint32_t index,
                        const uint8_t *data, size_t length, uint8_t *pixels, uint8_t *row) {
    uint64_t offset = TIFFGetStrileOffset(page->tif, index), size = TIFFGetStrileByteCount(page->tif, index);
    if (size == 0 || offset > length || size > length - offset) return 0;
    uint32_t column = index % page->across, line = index / page->across;
    uint64_t top = (uint64_t)line * page->piece_height;
    // A tile's stream always holds the whole tile; a strip's holds the rows left for the last one.
    uint32_t expected_width = page->piece_width, expected_height = page->piece_height;
    if (!page->tiled && page->height - top < expected_height) expected_height = (uint32_t)(page->height - top);
    afi_jpeg_attach_source(cinfo, source, data + offset, (size_t)size);
    if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) return 0;
    // Some writers give the last strip a full strip's rows: libtiff reads its top, and so does this.
    int last_strip = !page->tiled && index + 1 == page->down;
    if (cinfo->image_width != expected_width || cinfo->num_components != page->components
        || cinfo->data_precision != 8 || cinfo->progressive_mode
        || !(cinfo->image_height == expected_height || (last_strip && cinfo->image_height > expected_height))) {
        jpeg_abort_decompress(cinfo);
        return 0;
    }
    cinfo->jpeg_color_space = page->color_space;
    cinfo->out_color_space = JCS_EXT_RGBA;
    cinfo->scale_num = page->eighths;
    cinfo->scale_denom = 8;
    jpeg_start_decompress(cinfo);
    uint32_t x = (uint32_t)((uint64_t)column * page->piece_width * page->eighths / 8);
    uint32_t y = (uint32_t)(top * page->eighths / 8);
    if (cinfo->output_components != 4 || cinfo->output_width != scaled(page->piece_width, page->eighths)) {
        jpeg_abort_decompress(cinfo);
        return 0;
    }
    uint32_t rows = page->out_height - y < cinfo->output_height ? page->out_height - y : cinfo->output_height;
    uint32_t columns = page->out_width - x < cinfo->output_width ? page->out_width - x : cinfo->output_width;
    size_t stride = (size_t)page->out_width * 4;
    while (cinfo->output_scanline < rows) {
        uint8_t *place = pixels + (size_t)(y + cinfo->output_scanline) * stride + (size_t)x * 4;
        JSAMPROW target = columns == cinfo->output_width ? place : row;
        if (jpeg_read_scanlines(cinfo, &target, 1) != 1) {
            jpeg_abort_decompress(cinfo);
            return 0;
        }
        if (target == row) memcpy(place, row, (size_t)columns * 4);
    }
    // Rows past the page (a tile's padding) and the EOI are not needed; the tables stay loaded.
    jpeg_abort_decompress(cinfo);
    return 1;
}

int afi_tiff_decode_jpeg_scaled(TIFF *tif, const uint8_t *data, size_t length, uint32_t width, uint32_t height,
                                unsigned scale_eighths, uint8_t **out_pixels, afi_result *result) {
    layout page;
    if (scale_eighths < 1 || scale_eighths >= 8 || !read_layout(tif, width, height, scale_eighths, &page)) return 0;
    struct jpeg_decompress_struct cinfo;
    afi_jpeg_failure failure;
    struct jpeg_source_mgr source;
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile row = NULL;
    afi_jpeg_install_error_handlers(&failure);
    cinfo.err = &failure.base;
    if (setjmp(failure.jump)) {
        free(row);
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    // The shared tables first: libjpeg keeps them for the abbreviated streams that follow.
    if (page.tables) {
        afi_jpeg_attach_source(&cinfo, &source, page.tables, page.tables_length);
        if (jpeg_read_header(&cinfo, FALSE) != JPEG_HEADER_TABLES_ONLY) longjmp(failure.jump, 1);
    }
    // At most the page's pixels, which the caller checked against the limit.
    pixels = afi_alloc_pixels((size_t)page.out_width * page.out_height * 4);
    row = malloc((size_t)scaled(page.piece_width, scale_eighths) * 4);
    if (!pixels || !row) longjmp(failure.jump, 1);
    uint32_t count = page.across * page.down;
    for (uint32_t index = 0; index < count; index++) {
        if (!decode_piece(&cinfo, &source, &page, index, data, length, pixels, row)) longjmp(failure.jump, 1);
    }
    jpeg_destroy_decompress(&cinfo);
    free(row);
    result->width = page.out_width;
    result->height = page.out_height;
    *out_pixels = pixels;
    return 1;
}
