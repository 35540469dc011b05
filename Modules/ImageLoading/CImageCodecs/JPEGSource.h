#ifndef AF_CIMAGECODECS_JPEGSOURCE_H
#define AF_CIMAGECODECS_JPEGSOURCE_H
// Internal: libjpeg's error and source managers as JPEGDecoder.c sets them up, shared with the
// reader of JPEG strips and tiles in TIFFs (TIFFJPEGScaled.c).
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>
#include "CImageCodecs.h"

typedef struct {
    struct jpeg_error_mgr base;   // first, so the libjpeg pointer converts to ours
    jmp_buf jump;
    afi_status status;
    char message[AFI_MESSAGE_CAPACITY];
} afi_jpeg_failure;

/// Errors longjmp to failure->jump with the message kept (status AFI_CORRUPT unless set); warnings are dropped.
void afi_jpeg_install_error_handlers(afi_jpeg_failure *failure);
/// Prepares `cinfo` to read `data`; the caller has set cinfo->err and the jump. Reading past the end
/// is an error (AFI_TRUNCATED), never invented data.
void afi_jpeg_attach_source(j_decompress_ptr cinfo, struct jpeg_source_mgr *source, const uint8_t *data, size_t length);
#endif
