#include "BenchCurl.h"
#include <malloc.h>
#include <stdio.h>

void bench_release_free_memory(void) { malloc_trim(0); }

void bench_easy_configure(CURL *easy, bench_write_callback write, const char *ca) {
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (ca) {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
    }
}

void bench_easy_set_session_options(CURL *easy) {
    // The engine's shared list: the Accept-Encoding line libcurl would write itself for
    // CURLOPT_ACCEPT_ENCODING "" (every coding it decodes, in its order), then "Expect:" (which stops
    // libcurl's "Expect: 100-continue").
    static struct curl_slist *expect = NULL;
    if (!expect) {
        int features = curl_version_info(CURLVERSION_NOW)->features;
        char line[128];
        snprintf(line, sizeof line, "Accept-Encoding: %s%s%s%s%s",
                 (features & CURL_VERSION_LIBZ) ? "deflate, gzip" : "",
                 (features & CURL_VERSION_LIBZ) && (features & (CURL_VERSION_BROTLI | CURL_VERSION_ZSTD)) ? ", " : "",
                 (features & CURL_VERSION_BROTLI) ? "br" : "",
                 (features & CURL_VERSION_BROTLI) && (features & CURL_VERSION_ZSTD) ? ", " : "",
                 (features & CURL_VERSION_ZSTD) ? "zstd" : "");
        if (features & (CURL_VERSION_LIBZ | CURL_VERSION_BROTLI | CURL_VERSION_ZSTD)) expect = curl_slist_append(NULL, line);
        expect = curl_slist_append(expect, "Expect:");
    }
    curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 1L);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 64L * 1024);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 0L);
    curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 60000L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 604800000L);
    curl_easy_setopt(easy, CURLOPT_PROXY, "");
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, expect);
}

void bench_easy_set_url(CURL *easy, const char *url) { curl_easy_setopt(easy, CURLOPT_URL, url); }

void bench_easy_set_header_function(CURL *easy, bench_write_callback header, void *context) {
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, context);
}

void bench_easy_set_context(CURL *easy, void *context) {
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, context);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, context);
}

void *bench_easy_context(CURL *easy) {
    void *context = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &context);
    return context;
}

void bench_multi_allow_connections(CURLM *multi, long connections) {
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, connections < 64 ? 64L : connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
}

CURL *bench_multi_next_done(CURLM *multi, CURLcode *result) {
    int left;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left))) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}

/* The socket_action + epoll driver for the bare Swift loop: libcurl names the sockets to watch and its
 * next timeout; an eventfd in the same epoll set wakes the loop for new requests. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct bench_epoll { CURLM *multi; int epoll; int wake; long timeout_ms; int running; };

static int bench_socket_callback(CURL *easy, curl_socket_t fd, int what, void *user, void *socket_pointer) {
    (void)easy; (void)socket_pointer;
    bench_epoll_t *loop = user;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(loop->epoll, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    struct epoll_event event = { 0 };
    event.data.fd = fd;
    if (what & CURL_POLL_IN) event.events |= EPOLLIN;
    if (what & CURL_POLL_OUT) event.events |= EPOLLOUT;
    if (epoll_ctl(loop->epoll, EPOLL_CTL_MOD, fd, &event) != 0 && errno == ENOENT)
        epoll_ctl(loop->epoll, EPOLL_CTL_ADD, fd, &event);
    return 0;
}

static int bench_timer_callback(CURLM *multi, long timeout_ms, void *user) {
    (void)multi;
    ((bench_epoll_t *)user)->timeout_ms = timeout_ms;
    return 0;
}

bench_epoll_t *bench_epoll_attach(CURLM *multi) {
    bench_epoll_t *loop = calloc(1, sizeof *loop);
    loop->multi = multi;
    loop->epoll = epoll_create1(EPOLL_CLOEXEC);
    loop->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    loop->timeout_ms = -1;
    struct epoll_event event = { .events = EPOLLIN, .data.fd = loop->wake };
    epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &event);
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, bench_socket_callback);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, bench_timer_callback);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, loop);
    return loop;
}

void bench_epoll_wake(bench_epoll_t *loop) {
    uint64_t one = 1;
    ssize_t written = write(loop->wake, &one, sizeof one);
    (void)written;
}

/* libcurl calls the timer callback only when its deadline changes: after acting on a timer, read the
 * next one back (keeping the old 0 would make every later wait a busy poll). */
static void bench_epoll_timeout_action(bench_epoll_t *loop) {
    curl_multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &loop->running);
    curl_multi_timeout(loop->multi, &loop->timeout_ms);
}

void bench_epoll_kick(bench_epoll_t *loop) { bench_epoll_timeout_action(loop); }

void bench_epoll_wait(bench_epoll_t *loop, int max_wait_ms) {
    struct epoll_event events[256];
    int wait = loop->timeout_ms < 0 || loop->timeout_ms > max_wait_ms ? max_wait_ms : (int)loop->timeout_ms;
    int ready = epoll_wait(loop->epoll, events, 256, wait);
    if (ready <= 0) {
        bench_epoll_timeout_action(loop);
        return;
    }
    for (int i = 0; i < ready; i++) {
        int fd = events[i].data.fd;
        if (fd == loop->wake) {
            uint64_t count;
            ssize_t got = read(loop->wake, &count, sizeof count);
            (void)got;
            continue;
        }
        int flags = 0;
        if (events[i].events & (EPOLLIN | EPOLLHUP)) flags |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (events[i].events & EPOLLERR) flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(loop->multi, fd, flags, &loop->running);
    }
    if (loop->timeout_ms == 0) bench_epoll_timeout_action(loop);
}

void bench_epoll_detach(bench_epoll_t *loop) {
    close(loop->epoll);
    close(loop->wake);
    free(loop);
}
