#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "CCurlShim.h"

unsigned int afc_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}

CURLcode afc_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_blob(CURL *handle, CURLoption option, const void *data, size_t length) {
    struct curl_blob blob = { (void *)data, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}
CURLcode afc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) { return curl_easy_setopt(handle, option, value); }
CURLcode afc_easy_setopt_read_function(CURL *handle, curl_read_callback value) { return curl_easy_setopt(handle, CURLOPT_READFUNCTION, value); }
CURLcode afc_easy_setopt_seek_function(CURL *handle, curl_seek_callback value) { return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value); }
CURLcode afc_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback value) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value); }

static curl_socket_t afc_counted_open(void *open_sockets, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    curl_socket_t descriptor = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (descriptor != CURL_SOCKET_BAD) *(long *)open_sockets += 1;
    return descriptor;
}

static int afc_counted_close(void *open_sockets, curl_socket_t descriptor) {
    *(long *)open_sockets -= 1;
    return close(descriptor);
}

void afc_easy_count_sockets(CURL *handle, long *open_sockets) {
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, afc_counted_open);
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, open_sockets);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, afc_counted_close);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, open_sockets);
}

CURLMcode afc_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }

CURLcode afc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }

const size_t afc_readfunc_pause = CURL_READFUNC_PAUSE;
const size_t afc_readfunc_abort = CURL_READFUNC_ABORT;
const size_t afc_writefunc_pause = CURL_WRITEFUNC_PAUSE;
const int afc_pause_all = CURLPAUSE_ALL;
const int afc_pause_cont = CURLPAUSE_CONT;
const int afc_seekfunc_ok = CURL_SEEKFUNC_OK;
const int afc_seekfunc_fail = CURL_SEEKFUNC_FAIL;
const long afc_auth_basic = (long)CURLAUTH_BASIC;
const long afc_auth_digest = (long)CURLAUTH_DIGEST;
const long afc_pipe_multiplex = CURLPIPE_MULTIPLEX;
const long afc_http_version_2tls = CURL_HTTP_VERSION_2TLS;
const long afc_http_version_1_1 = CURL_HTTP_VERSION_1_1;
const long afc_http_version_2_0 = CURL_HTTP_VERSION_2_0;

// MARK: trust hook

/// What the SSL_CTX callback hands to OpenSSL's verify callback. Lives as long as the SSL_CTX (freed
/// through the ex_data free function), so a late verify never reads freed memory.
typedef struct {
    afc_trust_decider decider;
    void *userdata;
    char *host;
} afc_trust_context;

static int afc_trust_ex_index = -1;

static void afc_trust_context_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp) {
    (void)parent; (void)ad; (void)idx; (void)argl; (void)argp;
    afc_trust_context *context = (afc_trust_context *)ptr;
    if (context) { free(context->host); free(context); }
}

static int afc_verify(X509_STORE_CTX *store, void *arg) {
    afc_trust_context *context = (afc_trust_context *)arg;
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_untrusted(store);
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    int count = chain ? sk_X509_num(chain) : 0;
    // The untrusted stack normally starts with the leaf; when it does not, put the leaf first.
    int leaf_in_chain = (count > 0 && leaf && X509_cmp(sk_X509_value(chain, 0), leaf) == 0);
    int total = count + ((leaf && !leaf_in_chain) ? 1 : 0);
    if (total == 0) { X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED); return 0; }
    unsigned char **ders = calloc((size_t)total, sizeof(unsigned char *));
    size_t *lengths = calloc((size_t)total, sizeof(size_t));
    int filled = 0, ok = 1;
    if (!ders || !lengths) ok = 0;
    if (ok && leaf && !leaf_in_chain) {
        int length = i2d_X509(leaf, &ders[filled]);
        if (length <= 0) ok = 0; else lengths[filled++] = (size_t)length;
    }
    for (int i = 0; ok && i < count; i++) {
        int length = i2d_X509(sk_X509_value(chain, i), &ders[filled]);
        if (length <= 0) ok = 0; else lengths[filled++] = (size_t)length;
    }
    const char *host = context->host;
    int accepted = ok ? context->decider(context->userdata, (const unsigned char *const *)ders, lengths,
                                         (size_t)filled, host) : 0;
    for (int i = 0; i < filled; i++) OPENSSL_free(ders[i]);
    free(ders);
    free(lengths);
    if (accepted) {
        X509_STORE_CTX_set_error(store, X509_V_OK);
        return 1;
    }
    X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_REJECTED);
    return 0;
}

static afc_trust_decider afc_installed_decider = NULL;
static pthread_once_t afc_trust_once = PTHREAD_ONCE_INIT;

static void afc_trust_setup(void) {
    afc_trust_ex_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, afc_trust_context_free);
}

/// The host of the URL `curl` is connecting to (brackets of an IPv6 literal removed), malloc'd, or NULL.
static char *afc_connecting_host(CURL *curl) {
    char *url = NULL;
    if (curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url) return NULL;
    CURLU *parsed = curl_url();
    if (!parsed) return NULL;
    char *host = NULL;
    char *result = NULL;
    if (curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK && host) {
        size_t length = strlen(host);
        if (length >= 2 && host[0] == '[' && host[length - 1] == ']') {
            result = strndup(host + 1, length - 2);
        } else {
            result = strdup(host);
        }
        curl_free(host);
    }
    curl_url_cleanup(parsed);
    return result;
}

static CURLcode afc_ssl_ctx_callback(CURL *curl, void *ssl_ctx, void *userptr) {
    afc_trust_context *context = malloc(sizeof(afc_trust_context));
    if (!context) return CURLE_OUT_OF_MEMORY;
    context->decider = __atomic_load_n(&afc_installed_decider, __ATOMIC_ACQUIRE);
    context->userdata = userptr;
    context->host = afc_connecting_host(curl);
    // The SSL_CTX owns the context from here: freed with it through the ex_data free function.
    if (afc_trust_ex_index < 0 || !SSL_CTX_set_ex_data((SSL_CTX *)ssl_ctx, afc_trust_ex_index, context)) {
        free(context->host);
        free(context);
        return CURLE_SSL_CERTPROBLEM;
    }
    SSL_CTX_set_cert_verify_callback((SSL_CTX *)ssl_ctx, afc_verify, context);
    return CURLE_OK;
}

CURLcode afc_install_trust_hook(CURL *handle, afc_trust_decider decider, void *userdata) {
    pthread_once(&afc_trust_once, afc_trust_setup);
    __atomic_store_n(&afc_installed_decider, decider, __ATOMIC_RELEASE);
    CURLcode code;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L)) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L)) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_SESSIONID_CACHE, 0L)) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, afc_ssl_ctx_callback)) != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, userdata);
}
