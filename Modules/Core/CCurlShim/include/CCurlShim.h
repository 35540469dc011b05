#ifndef AF_CCURLSHIM_H
#define AF_CCURLSHIM_H
// Typed wrappers for libcurl's variadic calls, and the OpenSSL verify hook Core installs through
// CURLOPT_SSL_CTX_FUNCTION. Swift cannot call C variadic functions, so every option type gets one.
#include <curl/curl.h>
#include <stddef.h>
#include "AFClientIdentity.h"

/// The libcurl version number this process loaded (for diagnostics).
unsigned int afc_curl_version_num(void);

// MARK: easy options, one wrapper per argument type
CURLcode afc_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode afc_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode afc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode afc_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
/// A byte blob libcurl copies (CURL_BLOB_COPY), for CURLOPT_SSLCERT_BLOB and CURLOPT_SSLKEY_BLOB.
CURLcode afc_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length);
CURLcode afc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode afc_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value);
CURLcode afc_easy_setopt_read_function(CURL *handle, curl_read_callback value);
CURLcode afc_easy_setopt_seek_function(CURL *handle, curl_seek_callback value);
CURLcode afc_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value);
/// Opens and closes `handle`'s sockets through callbacks that keep `*open_sockets` up to date (the
/// engine's count of open connections, read on the engine thread, where libcurl calls them).
void afc_easy_count_sockets(CURL *handle, long *open_sockets);

// MARK: multi options
CURLMcode afc_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

// MARK: info
CURLcode afc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode afc_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode afc_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode afc_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

// MARK: constants defined as compound macros (not importable into Swift)
extern const size_t afc_readfunc_pause;
extern const size_t afc_readfunc_abort;
extern const size_t afc_writefunc_pause;
extern const int afc_pause_all;
extern const int afc_pause_cont;
extern const int afc_seekfunc_ok;
extern const int afc_seekfunc_fail;
extern const long afc_auth_basic;
extern const long afc_auth_digest;
extern const long afc_pipe_multiplex;
extern const long afc_http_version_2tls;
extern const long afc_http_version_1_1;
extern const long afc_http_version_2_0;

// MARK: the TLS trust hook
/// Decides a server's chain: `ders[i]`/`lengths[i]` is certificate i as the server sent it (leaf first);
/// `host` is the host of the URL being connected to (NULL if unknown). Returns 1 to accept, 0 to reject.
typedef int (*afc_trust_decider)(void *userdata, const unsigned char *const *ders, const size_t *lengths,
                                 size_t count, const char *host);

/// Installs the hook on an easy handle: every TLS handshake it starts hands the server chain to `decider`
/// with `userdata`. Also turns off libcurl's own host check (the decider owns it) and its TLS session cache
/// (so every handshake is decided). Returns the first failing CURLcode.
CURLcode afc_install_trust_hook(CURL *handle, afc_trust_decider decider, void *userdata);

#endif
