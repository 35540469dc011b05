// Pixel buffers for decoded images. A 4000x3000 RGBA image is 48 MB written once from start to end:
// with 4 KiB pages, faulting it in costs about as much as the JPEG decode itself. Large buffers are
// therefore aligned to 2 MiB and offered to transparent huge pages (a hint; without THP it is a
// plain allocation). The memory is released with free(), like any malloc'd block.
#include <stdlib.h>
#include <sys/mman.h>
#include "PixelBuffer.h"

enum { HUGE_PAGE = 2u << 20 };

uint8_t *afi_alloc_pixels(size_t size) {
    if (size < HUGE_PAGE) return malloc(size ? size : 1);
    if (size > SIZE_MAX - HUGE_PAGE) return NULL;
    size_t rounded = (size + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    uint8_t *pixels = aligned_alloc(HUGE_PAGE, rounded);
    if (pixels) (void)madvise(pixels, rounded, MADV_HUGEPAGE);
    return pixels;
}
