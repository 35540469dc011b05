#ifndef AF_CCURLSHIM_H
#define AF_CCURLSHIM_H
// Typed wrappers for libcurl's variadic calls, and the OpenSSL verify hook Core installs through
// CURLOPT_SSL_CTX_FUNCTION. Swift cannot call C variadic functions, so every option type gets one.
#include <curl/curl.h>

/// The libcurl version number this process loaded (for diagnostics).
unsigned int afc_curl_version_num(void);

#endif
