// zlib (Debian's zlib1g-dev): raw DEFLATE for WebSocket permessage-deflate (RFC 7692).
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros (they pass the header's version and z_stream's size), which
// Swift cannot call: these wrappers can.
static inline int CZlib_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
