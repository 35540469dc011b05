// libpsl (Debian's libpsl-dev): the public suffix list, as libcurl itself uses it for cookies.
#include <libpsl.h>
