// Non-variadic wrappers over libcurl for the SessionEngine benchmark's bare Swift peer (Swift cannot
// call curl_easy_setopt's C varargs).
#ifndef BENCH_CURL_H
#define BENCH_CURL_H
#include <curl/curl.h>

typedef size_t (*bench_write_callback)(char *, size_t, size_t, void *);

/// `ca`: NULL for HTTP/1.1, else HTTP/2 over TLS (ALPN, multiplexed) trusting the PEM certificates in `ca`.
void bench_easy_configure(CURL *easy, bench_write_callback write, const char *ca);
/// The options the session engine sets on a plain GET of a default session (SessionEngine's
/// Transfer.configure): decoded bodies, connect and resource timeouts, http(s) only, no proxy from the
/// environment, HTTP/2 over TLS, 64 KiB buffers, its own redirects, the "Expect:" list.
void bench_easy_set_session_options(CURL *easy);
void bench_easy_set_url(CURL *easy, const char *url);
/// Has libcurl pass each response header line to `header` with `context` (CURLOPT_HEADERFUNCTION).
void bench_easy_set_header_function(CURL *easy, bench_write_callback header, void *context);
void bench_easy_set_context(CURL *easy, void *context);
void *bench_easy_context(CURL *easy);
void bench_multi_allow_connections(CURLM *multi, long connections);
/// Returns freed heap memory to the system (glibc's malloc_trim, which Swift's Glibc module leaves out).
void bench_release_free_memory(void);
/// The next finished transfer's handle and result, or NULL when none is left.
CURL *bench_multi_next_done(CURLM *multi, CURLcode *result);

/// A curl_multi_socket_action + epoll driver (libcurl's socket and timer callbacks, an eventfd to wake it).
typedef struct bench_epoll bench_epoll_t;
bench_epoll_t *bench_epoll_attach(CURLM *multi);
/// Wakes a waiting bench_epoll_wait (any thread).
void bench_epoll_wake(bench_epoll_t *loop);
/// Lets libcurl act on its timers (after adding handles).
void bench_epoll_kick(bench_epoll_t *loop);
/// Waits up to `max_wait_ms` (less when libcurl's timer is due) and hands the ready sockets to libcurl.
void bench_epoll_wait(bench_epoll_t *loop, int max_wait_ms);
void bench_epoll_detach(bench_epoll_t *loop);
#endif
