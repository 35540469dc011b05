#define _GNU_SOURCE  /* pthread_setname_np */
#include <openssl/crypto.h>
#include <curl/curl.h>
#include <limits.h>
#include <stdio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include "CCurlShim.h"

/// OpenSSL frees its global state, locks included, in an atexit handler, so a thread still inside OpenSSL
/// when the process exits (a session's engine, a worker releasing a trust store) crashes on a freed lock
/// (openssl/openssl#6214; seen as af exiting with 139). Suppressed before anything initializes OpenSSL:
/// the process's memory goes at exit anyway. A constructor, so it runs before the first OpenSSL call
/// from either module that uses OpenSSL.
__attribute__((constructor)) static void afc_openssl_keeps_state_at_exit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

unsigned int afc_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}

void afc_curl_content_encodings(char *buffer, size_t capacity) {
    int features = curl_version_info(CURLVERSION_NOW)->features;
    snprintf(buffer, capacity, "%s%s%s%s%s",
             (features & CURL_VERSION_LIBZ) ? "deflate, gzip" : "",
             (features & CURL_VERSION_LIBZ) && (features & (CURL_VERSION_BROTLI | CURL_VERSION_ZSTD)) ? ", " : "",
             (features & CURL_VERSION_BROTLI) ? "br" : "",
             (features & CURL_VERSION_BROTLI) && (features & CURL_VERSION_ZSTD) ? ", " : "",
             (features & CURL_VERSION_ZSTD) ? "zstd" : "");
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

CURLMcode afc_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }

CURLcode afc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }
CURLcode afc_easy_active_socket(CURL *handle, int *socket) {
    curl_socket_t active = CURL_SOCKET_BAD;
    CURLcode result = curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &active);
    *socket = result == CURLE_OK ? (int)active : -1;
    return result;
}

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

// MARK: handshake hooks (server trust, client certificate)

/// What the SSL_CTX callback hands to OpenSSL's verify and certificate callbacks. Lives as long as the
/// SSL_CTX (freed through the ex_data free function), so a late callback never reads freed memory.
typedef struct {
    afc_trust_decider trust_decider;
    void *trust_userdata;
    afc_identity_decider identity_decider;
    /// The handle whose transfer opened the connection (it drives the handshake).
    CURL *connecting_handle;
    char *host;
    long port;
    /// The identity decider ran for this connection: a later request (renegotiation) keeps its answer.
    int identity_decided;
} afc_tls_context;

static int afc_tls_ex_index = -1;

static void afc_tls_context_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp) {
    (void)parent; (void)ad; (void)idx; (void)argl; (void)argp;
    afc_tls_context *context = (afc_tls_context *)ptr;
    if (context) { free(context->host); free(context); }
}

static int afc_verify(X509_STORE_CTX *store, void *arg) {
    afc_tls_context *context = (afc_tls_context *)arg;
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
    int accepted = ok ? context->trust_decider(context->trust_userdata, (const unsigned char *const *)ders, lengths,
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

struct afc_identity_sink {
    SSL *ssl;
    int presented;
};

int afc_identity_sink_present(afc_identity_sink *sink, const unsigned char *certificates, size_t certificates_length,
                              const unsigned char *key, size_t key_length) {
    if (!sink || !certificates || !key || certificates_length > INT_MAX || key_length > INT_MAX) return 0;
    int ok = 0;
    BIO *chain = BIO_new_mem_buf(certificates, (int)certificates_length);
    BIO *key_bio = BIO_new_mem_buf(key, (int)key_length);
    X509 *leaf = chain ? PEM_read_bio_X509(chain, NULL, NULL, NULL) : NULL;
    EVP_PKEY *private_key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, NULL) : NULL;
    if (leaf && private_key && SSL_use_certificate(sink->ssl, leaf) == 1 && SSL_use_PrivateKey(sink->ssl, private_key) == 1
        && SSL_check_private_key(sink->ssl) == 1 && SSL_clear_chain_certs(sink->ssl) == 1) {
        ok = 1;
        X509 *extra;
        while (ok && (extra = PEM_read_bio_X509(chain, NULL, NULL, NULL)) != NULL) {
            // add0 takes the certificate on success.
            if (SSL_add0_chain_cert(sink->ssl, extra) != 1) { X509_free(extra); ok = 0; }
        }
    }
    // Reading PEM to its end leaves "no start line" on the error queue, which libcurl would report later.
    ERR_clear_error();
    X509_free(leaf);
    EVP_PKEY_free(private_key);
    BIO_free(chain);
    BIO_free(key_bio);
    sink->presented = ok;
    return ok;
}

/// OpenSSL's certificate callback: on a client it runs when the server sends a CertificateRequest.
static int afc_client_certificate(SSL *ssl, void *arg) {
    afc_tls_context *context = (afc_tls_context *)arg;
    if (context->identity_decided) return 1;
    context->identity_decided = 1;
    STACK_OF(X509_NAME) *names = SSL_get_client_CA_list(ssl);
    int count = names ? sk_X509_NAME_num(names) : 0;
    unsigned char **ders = count > 0 ? calloc((size_t)count, sizeof(unsigned char *)) : NULL;
    size_t *lengths = count > 0 ? calloc((size_t)count, sizeof(size_t)) : NULL;
    if (count > 0 && (!ders || !lengths)) { free(ders); free(lengths); return 0; }
    int filled = 0;
    for (int i = 0; i < count; i++) {
        int length = i2d_X509_NAME(sk_X509_NAME_value(names, i), &ders[filled]);
        if (length > 0) lengths[filled++] = (size_t)length;
    }
    afc_identity_sink sink = { ssl, 0 };
    int answer = context->identity_decider(context->connecting_handle, context->host, context->port,
                                           (const unsigned char *const *)ders, lengths, (size_t)filled, &sink);
    for (int i = 0; i < filled; i++) OPENSSL_free(ders[i]);
    free(ders);
    free(lengths);
    switch (answer) {
    case AFC_IDENTITY_ANSWER_WITHOUT: return 1;
    case AFC_IDENTITY_ANSWER_PRESENTED: return sink.presented;
    default: return 0;
    }
}

static afc_trust_decider afc_installed_trust_decider = NULL;
static afc_identity_decider afc_installed_identity_decider = NULL;
static pthread_once_t afc_tls_once = PTHREAD_ONCE_INIT;

static void afc_tls_setup(void) {
    afc_tls_ex_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, afc_tls_context_free);
}

/// The host (brackets of an IPv6 literal removed, malloc'd, or NULL) and port of the URL `curl` is
/// connecting to.
static char *afc_connecting_host(CURL *curl, long *port) {
    *port = 0;
    char *url = NULL;
    if (curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url) return NULL;
    CURLU *parsed = curl_url();
    if (!parsed) return NULL;
    char *host = NULL;
    char *port_text = NULL;
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
    if (curl_url_get(parsed, CURLUPART_PORT, &port_text, CURLU_DEFAULT_PORT) == CURLUE_OK && port_text) {
        *port = strtol(port_text, NULL, 10);
        curl_free(port_text);
    }
    curl_url_cleanup(parsed);
    return result;
}

/// Hangs a context for the connection's handshake on its SSL_CTX, with the deciders asked for.
static CURLcode afc_prepare_ssl_ctx(CURL *curl, SSL_CTX *ssl_ctx, void *trust_userdata, int uses_trust, int uses_identity) {
    afc_tls_context *context = calloc(1, sizeof(afc_tls_context));
    if (!context) return CURLE_OUT_OF_MEMORY;
    if (uses_trust) {
        context->trust_decider = __atomic_load_n(&afc_installed_trust_decider, __ATOMIC_ACQUIRE);
        context->trust_userdata = trust_userdata;
    }
    if (uses_identity) context->identity_decider = __atomic_load_n(&afc_installed_identity_decider, __ATOMIC_ACQUIRE);
    context->connecting_handle = curl;
    context->host = afc_connecting_host(curl, &context->port);
    // The SSL_CTX owns the context from here: freed with it through the ex_data free function.
    if (afc_tls_ex_index < 0 || !SSL_CTX_set_ex_data(ssl_ctx, afc_tls_ex_index, context)) {
        free(context->host);
        free(context);
        return CURLE_SSL_CERTPROBLEM;
    }
    if (context->trust_decider) SSL_CTX_set_cert_verify_callback(ssl_ctx, afc_verify, context);
    if (context->identity_decider) SSL_CTX_set_cert_cb(ssl_ctx, afc_client_certificate, context);
    return CURLE_OK;
}

// One SSL_CTX callback per combination of deciders: CURLOPT_SSL_CTX_DATA carries only the trust userdata.
static CURLcode afc_ssl_ctx_trust(CURL *curl, void *ssl_ctx, void *userptr) {
    return afc_prepare_ssl_ctx(curl, (SSL_CTX *)ssl_ctx, userptr, 1, 0);
}
static CURLcode afc_ssl_ctx_identity(CURL *curl, void *ssl_ctx, void *userptr) {
    return afc_prepare_ssl_ctx(curl, (SSL_CTX *)ssl_ctx, userptr, 0, 1);
}
static CURLcode afc_ssl_ctx_trust_and_identity(CURL *curl, void *ssl_ctx, void *userptr) {
    return afc_prepare_ssl_ctx(curl, (SSL_CTX *)ssl_ctx, userptr, 1, 1);
}

CURLcode afc_install_tls_hooks(CURL *handle, afc_trust_decider trust_decider, void *trust_userdata,
                               afc_identity_decider identity_decider) {
    if (!trust_decider && !identity_decider) return CURLE_OK;
    pthread_once(&afc_tls_once, afc_tls_setup);
    CURLcode code;
    curl_ssl_ctx_callback callback;
    if (trust_decider) {
        __atomic_store_n(&afc_installed_trust_decider, trust_decider, __ATOMIC_RELEASE);
        if ((code = curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L)) != CURLE_OK) return code;
        if ((code = curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L)) != CURLE_OK) return code;
    }
    if (identity_decider) __atomic_store_n(&afc_installed_identity_decider, identity_decider, __ATOMIC_RELEASE);
    if (trust_decider && identity_decider) callback = afc_ssl_ctx_trust_and_identity;
    else if (trust_decider) callback = afc_ssl_ctx_trust;
    else callback = afc_ssl_ctx_identity;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_SESSIONID_CACHE, 0L)) != CURLE_OK) return code;
    if ((code = curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, callback)) != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_DATA, trust_userdata);
}

int afc_easy_peer_chain(CURL *handle, afc_certificate_sink sink, void *context) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info
        || info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return -1;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain((SSL *)info->internals);
    if (!chain) return -1;
    int count = sk_X509_num(chain);
    for (int index = 0; index < count; index++) {
        unsigned char *der = NULL;
        int length = i2d_X509(sk_X509_value(chain, index), &der);
        if (length <= 0) return -1;
        sink(context, (size_t)index, der, (size_t)length);
        OPENSSL_free(der);
    }
    return count;
}

/// Names the calling thread as the kernel shows it (top, perf, /proc/PID/task/TID/comm): at most 15 bytes.
void afc_name_current_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}

int afc_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

CURLSH *afc_share_connection_cache(void) {
    CURLSH *share = curl_share_init();
    if (share == NULL) return NULL;
    if (curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT) != CURLSHE_OK) {
        curl_share_cleanup(share);
        return NULL;
    }
    return share;
}

int afc_epoll_control(int epoll, int operation, int socket, unsigned int events) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.fd = socket;
    return epoll_ctl(epoll, operation, socket, &event);
}

int afc_eventfd_create(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int afc_epoll_ready(int epoll, int *sockets, unsigned int *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, ready, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        sockets[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}
