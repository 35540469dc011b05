#include "CImageCodecs.h"
#include <png.h>

const char *afi_png_version(void) {
    return png_get_libpng_ver(NULL);
}
