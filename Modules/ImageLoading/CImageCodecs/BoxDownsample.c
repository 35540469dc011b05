// Box-filter downsampling: each destination pixel averages the source rectangle it covers.
// Colors are weighted by alpha so transparent pixels do not bleed their (invisible) color.
#include "CImageCodecs.h"

void afi_box_downsample(const uint8_t *src, uint32_t src_width, uint32_t src_height,
                        uint8_t *dst, uint32_t dst_width, uint32_t dst_height) {
    if (dst_width == 0 || dst_height == 0 || dst_width > src_width || dst_height > src_height) return;
    for (uint32_t dy = 0; dy < dst_height; dy++) {
        uint32_t y0 = (uint32_t)((uint64_t)dy * src_height / dst_height);
        uint32_t y1 = (uint32_t)((uint64_t)(dy + 1) * src_height / dst_height);
        if (y1 <= y0) y1 = y0 + 1;
        for (uint32_t dx = 0; dx < dst_width; dx++) {
            uint32_t x0 = (uint32_t)((uint64_t)dx * src_width / dst_width);
            uint32_t x1 = (uint32_t)((uint64_t)(dx + 1) * src_width / dst_width);
            if (x1 <= x0) x1 = x0 + 1;
            uint64_t r = 0, g = 0, b = 0, a = 0;
            for (uint32_t y = y0; y < y1; y++) {
                const uint8_t *p = src + ((size_t)y * src_width + x0) * 4;
                for (uint32_t x = x0; x < x1; x++, p += 4) {
                    r += (uint64_t)p[0] * p[3]; g += (uint64_t)p[1] * p[3]; b += (uint64_t)p[2] * p[3]; a += p[3];
                }
            }
            uint64_t count = (uint64_t)(y1 - y0) * (x1 - x0);
            uint8_t *q = dst + ((size_t)dy * dst_width + dx) * 4;
            if (a == 0) { q[0] = q[1] = q[2] = q[3] = 0; continue; }
            q[0] = (uint8_t)((r + a / 2) / a);
            q[1] = (uint8_t)((g + a / 2) / a);
            q[2] = (uint8_t)((b + a / 2) / a);
            q[3] = (uint8_t)((a + count / 2) / count);
        }
    }
}
