#ifndef AF_CIMAGECODECS_H
#define AF_CIMAGECODECS_H
// libpng and libjpeg report errors by longjmp, which Swift cannot catch: decoding runs here, in C,
// and returns a status code instead.
#include <stddef.h>

/// The libpng version this process loaded (for diagnostics).
const char *afi_png_version(void);

#endif
