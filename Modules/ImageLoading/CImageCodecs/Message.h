#ifndef AF_CIMAGECODECS_MESSAGE_H
#define AF_CIMAGECODECS_MESSAGE_H
// Internal: writes a failure reason into an afi_result.
#include <stdio.h>
#include "CImageCodecs.h"

static inline afi_status afi_fail(afi_result *result, afi_status status, const char *message) {
    snprintf(result->message, sizeof result->message, "%s", message);
    return status;
}
#endif
