#ifndef AF_CCURLSHIM_H
#define AF_CCURLSHIM_H
// Typed wrappers for libcurl's variadic calls, and the OpenSSL verify hook Core installs through
// CURLOPT_SSL_CTX_FUNCTION. Swift cannot call C variadic functions, so every option type gets one.
#include <curl/curl.h>
#include <stddef.h>

/// The libcurl version number this process loaded (for diagnostics).
unsigned int afc_curl_version_num(void);
/// The content codings the loaded libcurl decodes, as it names them in the Accept-Encoding header it
/// sends for CURLOPT_ACCEPT_ENCODING "" (its order: deflate, gzip, br, zstd), comma-separated into
/// `buffer` (NUL-terminated; empty when it decodes none).
void afc_curl_content_encodings(char *buffer, size_t capacity);

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
// MARK: the engine's socket loop (SocketLoop.c)
/// libcurl's socket interface over one epoll set, with an eventfd that wakes the wait from other threads.
/// Everything but `afc_socket_loop_wake` runs on the engine thread.
typedef struct afc_socket_loop afc_socket_loop_t;
/// What `afc_socket_loop_wait` found: a wake-up, libcurl's sockets ready (handed to libcurl), the extra
/// descriptor readable.
enum { AFC_SOCKET_LOOP_WOKEN = 1, AFC_SOCKET_LOOP_SOCKETS_READY = 2, AFC_SOCKET_LOOP_EXTRA_READY = 4 };
/// A loop with no multi handle yet; NULL when memory, epoll or eventfd ran out.
afc_socket_loop_t *afc_socket_loop_create(void);
/// Installs the socket and timer callbacks on `multi`, which the loop drives from now on; returns its
/// index (the first is 0), -1 when memory ran out or 4,096 were added.
int afc_socket_loop_add_multi(afc_socket_loop_t *loop, CURLM *multi);
/// Closes the loop's descriptors and frees it (after its multi handles' cleanup: libcurl calls the
/// callbacks while it closes connections).
void afc_socket_loop_destroy(afc_socket_loop_t *loop);
/// Wakes a waiting `afc_socket_loop_wait` (any thread).
void afc_socket_loop_wake(afc_socket_loop_t *loop);
/// The count of sockets libcurl has open through handles given to `afc_easy_count_sockets`.
long *afc_socket_loop_open_sockets(afc_socket_loop_t *loop);
/// Watches `descriptor` for readability beside libcurl's sockets (-1: none); replaces the previous one.
/// -1 when epoll refused it.
int afc_socket_loop_watch_extra(afc_socket_loop_t *loop, int descriptor);
/// Lets libcurl act on each multi handle's timer that is due (new and unpaused transfers start this way);
/// 1 when any ran.
int afc_socket_loop_run_due_timers(afc_socket_loop_t *loop);
/// Milliseconds until the first of libcurl's timers is due (0: due), -1 when none is set.
int afc_socket_loop_milliseconds_to_deadline(const afc_socket_loop_t *loop);
/// Waits up to `wait_ms` (0: not at all) for ready sockets, a wake-up or the extra descriptor. Returns
/// what it found (the AFC_SOCKET_LOOP_ bits), -1 on failure.
int afc_socket_loop_wait(afc_socket_loop_t *loop, int wait_ms);
/// Hands the sockets the last wait found ready to libcurl (its callbacks run inside: the caller reads
/// the time first, for their activity stamps).
void afc_socket_loop_dispatch(afc_socket_loop_t *loop);
/// The index of a multi handle libcurl acted on since this last returned it (its messages may have
/// changed), -1 when there is none.
int afc_socket_loop_next_acted(afc_socket_loop_t *loop);
/// Opens and closes `handle`'s sockets through callbacks that keep `loop`'s count of open sockets and its
/// registrations up to date (libcurl calls them on the engine thread).
void afc_easy_count_sockets(CURL *handle, afc_socket_loop_t *loop);

// MARK: multi options
CURLMcode afc_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

// MARK: info
CURLcode afc_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode afc_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode afc_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode afc_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);
// The socket of a connect-only transfer's connection (CURLINFO_ACTIVESOCKET takes a curl_socket_t, not a long).
CURLcode afc_easy_active_socket(CURL *handle, int *socket);

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

/// Receives certificate `index` of a chain as DER (valid only during the call).
typedef void (*afc_certificate_sink)(void *context, size_t index, const unsigned char *der, size_t length);

/// Hands the chain the server of `handle`'s current TLS connection presented (leaf first) to `sink`, one
/// certificate per call, and returns how many; -1 when the handle has no OpenSSL connection now. Call
/// while the transfer runs (from a header callback, say): the connection may be gone after it ends.
int afc_easy_peer_chain(CURL *handle, afc_certificate_sink sink, void *context);

// MARK: the client-certificate hook
/// Where a client-certificate decider puts the identity it presents (valid only during the decider's call).
typedef struct afc_identity_sink afc_identity_sink;

/// What a client-certificate decider answers.
enum afc_identity_answer {
    AFC_IDENTITY_ANSWER_WITHOUT = 0,  // go on without a certificate (the server decides)
    AFC_IDENTITY_ANSWER_PRESENTED = 1, // the identity given to afc_identity_sink_present is sent
    AFC_IDENTITY_ANSWER_CANCEL = 2,   // fail the handshake
};

/// Decides what to present when a server asks for a client certificate (once per connection): `handle` is
/// the easy handle whose transfer opened the connection, `host`/`port` what it connects to (host NULL if
/// unknown), `issuers[i]`/`issuer_lengths[i]` the DER of each certificate authority name the server
/// accepts (none: any). Returns an afc_identity_answer.
typedef int (*afc_identity_decider)(CURL *handle, const char *host, long port,
                                    const unsigned char *const *issuers, const size_t *issuer_lengths,
                                    size_t issuer_count, afc_identity_sink *sink);

/// Presents an identity from a decider: `certificates` is PEM (the leaf, then chain certificates), `key` a
/// PEM private key. Returns 1 when the handshake will send it, 0 when it could not be read (or the key is
/// not the certificate's).
int afc_identity_sink_present(afc_identity_sink *sink, const unsigned char *certificates, size_t certificates_length,
                              const unsigned char *key, size_t key_length);

/// Installs the handshake hooks on an easy handle; either decider may be NULL.
/// - `trust_decider`: every TLS handshake the handle starts hands the server chain to it with
///   `trust_userdata`. Also turns off libcurl's own host check (the decider owns it).
/// - `identity_decider`: asked when a server requests a client certificate.
/// Both turn off libcurl's TLS session cache, so that every new connection is decided (a resumed session
/// skips both the chain and the certificate request). Returns the first failing CURLcode.
CURLcode afc_install_tls_hooks(CURL *handle, afc_trust_decider trust_decider, void *trust_userdata,
                               afc_identity_decider identity_decider);

/// A share handle that holds one connection cache (CURL_LOCK_DATA_CONNECT), no lock functions: for one
/// upgraded connection's handle, so that curl_easy_send/recv find their connection in a cache of one
/// (in a multi handle's cache they search every connection of the multi: O(connections) a call).
/// NULL when libcurl cannot make one. Free with curl_share_cleanup after the easy handle.
CURLSH *afc_share_connection_cache(void);

/// Names the calling thread as the kernel shows it (at most 15 bytes are kept).
void afc_name_current_thread(const char *name);

/// epoll for upgraded connections' sockets (UpgradeSocketWatch), with plain integers: epoll_event is a
/// packed struct, which Swift code is better off not holding. Return -1 with errno set on failure.
/// `afc_epoll_create`: an epoll descriptor (close-on-exec). `afc_epoll_control`: `operation` 1 adds,
/// 2 removes, 3 modifies `socket`'s registration for `events` (1 readable, 4 writable). `afc_epoll_ready`:
/// waits at most `timeout_ms` and writes up to `capacity` ready sockets and their events (1 readable,
/// 4 writable, 8 error, 16 hang-up), returning how many.
int afc_epoll_create(void);
int afc_epoll_control(int epoll, int operation, int socket, unsigned int events);
int afc_epoll_ready(int epoll, int *sockets, unsigned int *events, int capacity, int timeout_ms);
/// A non-blocking, close-on-exec eventfd (the engine's wake-up while it sleeps in epoll); -1 on failure.
int afc_eventfd_create(void);

#endif
