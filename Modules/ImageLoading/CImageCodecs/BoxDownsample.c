// Box-filter downsampling: each destination pixel averages the source rectangle it covers.
// Colors are weighted by alpha so transparent pixels do not bleed their (invisible) color. The oriented
// form writes each pixel where an EXIF orientation shows it: downsampling and turning upright in one pass
// (with a destination the source's size, each box is one pixel: turning alone).
#include "CImageCodecs.h"

/// Where the pixel at (x, y) of a `width` x `height` image goes when it is shown with EXIF `orientation`
/// (the upright image is `height` wide for 5-8).
static size_t upright_index(uint32_t x, uint32_t y, uint32_t width, uint32_t height, unsigned orientation) {
    uint32_t ux, uy, upright_width = orientation >= 5 && orientation <= 8 ? height : width;
    switch (orientation) {
    case 2: ux = width - 1 - x; uy = y; break;
    case 3: ux = width - 1 - x; uy = height - 1 - y; break;
    case 4: ux = x; uy = height - 1 - y; break;
    case 5: ux = y; uy = x; break;
    case 6: ux = height - 1 - y; uy = x; break;
    case 7: ux = height - 1 - y; uy = width - 1 - x; break;
    case 8: ux = y; uy = width - 1 - x; break;
    default: ux = x; uy = y; break;
    }
    return ((size_t)uy * upright_width + ux) * 4;
}

void afi_box_downsample_oriented(const uint8_t *src, uint32_t src_width, uint32_t src_height,
                                 uint8_t *dst, uint32_t dst_width, uint32_t dst_height, unsigned orientation) {
    if (dst_width == 0 || dst_height == 0 || dst_width > src_width || dst_height > src_height) return;
    for (uint32_t dy = 0; dy < dst_height; dy++) {
        uint32_t y0 = (uint32_t)((uint64_t)dy * src_height / dst_height);
        uint32_t y1 = (uint32_t)((uint64_t)(dy + 1) * src_height / dst_height);
        if (y1 <= y0) y1 = y0 + 1;
        for (uint32_t dx = 0; dx < dst_width; dx++) {
            uint32_t x0 = (uint32_t)((uint64_t)dx * src_width / dst_width);
            uint32_t x1 = (uint32_t)((uint64_t)(dx + 1) * src_width / dst_width);
            if (x1 <= x0) x1 = x0 + 1;
            uint8_t *q = dst + upright_index(dx, dy, dst_width, dst_height, orientation);
            if (y1 - y0 == 1 && x1 - x0 == 1) {
                // One source pixel (turning without shrinking): copied as it is, a transparent one's colour too.
                const uint8_t *p = src + ((size_t)y0 * src_width + x0) * 4;
                q[0] = p[0]; q[1] = p[1]; q[2] = p[2]; q[3] = p[3];
                continue;
            }
            uint64_t r = 0, g = 0, b = 0, a = 0;
            for (uint32_t y = y0; y < y1; y++) {
                const uint8_t *p = src + ((size_t)y * src_width + x0) * 4;
                for (uint32_t x = x0; x < x1; x++, p += 4) {
                    r += (uint64_t)p[0] * p[3]; g += (uint64_t)p[1] * p[3]; b += (uint64_t)p[2] * p[3]; a += p[3];
                }
            }
            uint64_t count = (uint64_t)(y1 - y0) * (x1 - x0);
            if (a == 0) { q[0] = q[1] = q[2] = q[3] = 0; continue; }
            q[0] = (uint8_t)((r + a / 2) / a);
            q[1] = (uint8_t)((g + a / 2) / a);
            q[2] = (uint8_t)((b + a / 2) / a);
            q[3] = (uint8_t)((a + count / 2) / count);
        }
    }
}
