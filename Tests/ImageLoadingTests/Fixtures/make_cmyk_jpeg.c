// Writes cmyk-adobe.jpg: a 32x32 CMYK JPEG (libjpeg writes an Adobe marker for CMYK, and the samples
// are stored inverted as Adobe's writers do) with four solid 16x16 quadrants. cjpeg cannot write
// CMYK, hence this generator; its output is committed beside it.
// Build and run: cc make_cmyk_jpeg.c -ljpeg -o /tmp/make_cmyk_jpeg && /tmp/make_cmyk_jpeg cmyk-adobe.jpg
#include <stdio.h>
#include <jpeglib.h>

// Ink amounts (0 = none, 255 = full) of the quadrants: top left, top right, bottom left, bottom right.
static const unsigned char inks[4][4] = {
    {0, 0, 0, 0},        // white paper
    {255, 0, 0, 0},      // full cyan
    {0, 128, 255, 0},    // orange-ish: half magenta, full yellow
    {0, 0, 0, 191},      // 75% black
};

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *out = fopen(argv[1], "wb");
    if (!out) return 1;
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, out);
    cinfo.image_width = 32;
    cinfo.image_height = 32;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 100, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char row[32 * 4];
    while (cinfo.next_scanline < 32) {
        for (int x = 0; x < 32; x++) {
            int quadrant = (cinfo.next_scanline >= 16) * 2 + (x >= 16);
            for (int c = 0; c < 4; c++) row[x * 4 + c] = (unsigned char)(255 - inks[quadrant][c]);
        }
        JSAMPROW pointer = row;
        jpeg_write_scanlines(&cinfo, &pointer, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    fclose(out);
    return 0;
}
