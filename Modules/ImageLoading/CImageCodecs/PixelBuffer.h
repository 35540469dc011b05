#ifndef AF_CIMAGECODECS_PIXELBUFFER_H
#define AF_CIMAGECODECS_PIXELBUFFER_H
// Internal: allocation of decoded pixel buffers (freed with free()).
#include <stddef.h>
#include <stdint.h>

uint8_t *afi_alloc_pixels(size_t size);
#endif
