#ifndef AF_CIMAGECODECS_H
#define AF_CIMAGECODECS_H
// libpng and libjpeg report errors by longjmp, which Swift cannot catch: decoding runs here, in C,
// and returns a status code instead. The GIF decoder and libtiff's reader live here too so all share
// one contract.
//
// Contract of every afi_*_decode function:
// - input: `data`/`length` (never read past), `max_pixels` (width * height of the encoded image
//   must not exceed it; checked from the header before any pixel buffer is allocated).
// - output on AFI_OK: `*out_pixels` is a malloc'd buffer of width * height * 4 bytes, RGBA8,
//   straight (non-premultiplied) alpha, rows top to bottom, no padding; the caller frees it.
// - on any other status nothing is allocated and `message` holds a short reason (NUL-terminated).
#include <stddef.h>
#include <stdint.h>

typedef enum {
    AFI_OK = 0,
    /// The data ended before the image did.
    AFI_TRUNCATED = 1,
    /// The data is not a valid image of the format (bad signature, bad chunk, bad code...).
    AFI_CORRUPT = 2,
    /// width * height exceeds the caller's limit (a decompression bomb guard).
    AFI_TOO_LARGE = 3,
    /// An allocation failed.
    AFI_OUT_OF_MEMORY = 4,
    /// A valid image whose pixels are of a kind the decoder refuses (the message names it).
    AFI_UNSUPPORTED = 5,
} afi_status;

enum { AFI_MESSAGE_CAPACITY = 200 };

typedef struct {
    uint32_t width;
    uint32_t height;
    char message[AFI_MESSAGE_CAPACITY];
} afi_result;

/// The libpng version this process loaded (for diagnostics).
const char *afi_png_version(void);

/// Decodes a PNG (every color type and bit depth, palette with tRNS, Adam7 interlace) to RGBA8.
/// 16-bit samples keep their high byte.
afi_status afi_png_decode(const uint8_t *data, size_t length, uint64_t max_pixels,
                          uint8_t **out_pixels, afi_result *result);

/// Decodes a JPEG (baseline, progressive, grayscale, RGB, CMYK/YCCK incl. Adobe-inverted) to RGBA8
/// (alpha 255). `scale_eighths` in 1...8 asks libjpeg for an output of scale_eighths/8 of the
/// encoded size (DCT scaling, for downsampling at decode time); 8 is full size.
/// `max_pixels` bounds the encoded size; `result` receives the output size.
afi_status afi_jpeg_decode(const uint8_t *data, size_t length, uint64_t max_pixels, unsigned scale_eighths,
                           uint8_t **out_pixels, afi_result *result);

/// Reads the encoded size of a JPEG from its header without decoding pixels.
afi_status afi_jpeg_read_size(const uint8_t *data, size_t length, afi_result *result);

/// Decodes the first frame of a GIF (87a/89a) onto its canvas (the logical screen, grown to hold the
/// frame): pixels outside the frame and transparent-index pixels are (0,0,0,0). LZW minimum code sizes
/// 1 to 11; without any colour table index i is gray level i.
/// The canvas size of a GIF without decoding pixels: its logical screen, grown to hold the first frame.
afi_status afi_gif_read_size(const uint8_t *data, size_t length, afi_result *result);
afi_status afi_gif_decode(const uint8_t *data, size_t length, uint64_t max_pixels,
                          uint8_t **out_pixels, afi_result *result);

/// The size of a WebP (an animation's canvas) without decoding pixels.
afi_status afi_webp_read_size(const uint8_t *data, size_t length, afi_result *result);
/// Decodes a WebP (lossy, lossless, alpha; an animation's first frame placed on its transparent canvas)
/// to RGBA8. A still image is scaled by libwebp while decoding when `target_width` x `target_height`
/// (0 x 0: none) is smaller than it; `result` then holds the scaled size.
afi_status afi_webp_decode(const uint8_t *data, size_t length, uint64_t max_pixels, uint32_t target_width,
                           uint32_t target_height, uint8_t **out_pixels, afi_result *result);

/// The size of a TIFF's first page without decoding pixels; AFI_UNSUPPORTED (or AFI_CORRUPT) when its
/// tags already say afi_tiff_decode will refuse it.
afi_status afi_tiff_read_size(const uint8_t *data, size_t length, afi_result *result);
/// Decodes a TIFF's first page with libtiff (strips or tiles; none, LZW, PackBits, Deflate, JPEG, CCITT
/// and the other compressions libtiff reads; 1, 2, 4, 8, 12 or 16 bits per sample; bilevel, grayscale,
/// palette, RGB(A), CMYK, YCbCr) to RGBA8 with straight alpha, rows as stored (the Orientation tag is
/// not applied). Pixels are Pillow's: samples of more than 8 bits keep their 8 most significant bits,
/// associated alpha is divided out as Pillow does, CMYK becomes RGB by Pillow's formula. AFI_UNSUPPORTED
/// for floating-point or complex samples, signed samples above 8 bits, other depths, CIE L*a*b* and
/// JPEG compression of other than 8 bits. libtiff's own allocations are bounded by the pixel limit.
/// `scale_eighths` in 1...7 asks for scale_eighths/8 of the encoded size where libjpeg can scale while
/// decoding (JPEG strips or tiles, 8-bit YCbCr, RGB or gray, pieces landing on whole scaled pixels);
/// other pages decode full size. `result` receives the output size.
afi_status afi_tiff_decode(const uint8_t *data, size_t length, uint64_t max_pixels, unsigned scale_eighths,
                           uint8_t **out_pixels, afi_result *result);

/// Resamples an RGBA8 image to a smaller size with an alpha-weighted box filter: each destination
/// pixel averages the source pixels its area covers, and is written where EXIF `orientation` (1-8;
/// anything else is 1) shows it, so downsampling and turning upright take one pass. `dst` holds
/// dst_width * dst_height * 4 bytes (dst_height wide for orientations 5-8); the destination must not be
/// larger than the source in either dimension; with the source's size it only turns the image.
void afi_box_downsample_oriented(const uint8_t *src, uint32_t src_width, uint32_t src_height,
                                 uint8_t *dst, uint32_t dst_width, uint32_t dst_height, unsigned orientation);

#endif
