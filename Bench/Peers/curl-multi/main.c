/* The C peers of the SessionEngine benchmark: libcurl's multi interface driven directly, the way a
 * careful C client would (one multi handle, reused easy handles, one connection per request in flight),
 * in two loops: curl_multi_perform + curl_multi_poll, and curl_multi_socket_action + epoll (libcurl only
 * touches the sockets that are ready; with libcurl 7.88 that is no faster from 32 in flight up, since each
 * request adds epoll_ctl calls).
 * Usage:
 *   curl-multi get  <count> <parallel> <url> [perform|epoll] [h1|h2 <ca-file>]
 *                                              small GETs, <parallel> in flight; body discarded after counting
 *   curl-multi mem  <url>                      one download into a memory buffer preallocated from Content-Length
 *   curl-multi file <url> <path>               one download written to a file
 * Prints one line: "<seconds> <bytes> <peak-rss-bytes> <cpu-seconds>" (cpu: user + system of this process).
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "BenchCurl.h"
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over exec, so a child of the large
 * benchmark process would report its parent's peak. */
static long peak_rss(void) {
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kilobytes = 0;
    while (status && fgets(line, sizeof line, status))
        if (sscanf(line, "VmHWM: %ld kB", &kilobytes) == 1) break;
    if (status) fclose(status);
    return kilobytes * 1024L;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

typedef struct { char *data; size_t size, capacity; CURL *easy; } buffer_t;

static size_t count_body(char *ptr, size_t size, size_t n, void *user) {
    (void)ptr;
    *(size_t *)user += size * n;
    return size * n;
}

static size_t to_memory(char *ptr, size_t size, size_t n, void *user) {
    buffer_t *buffer = user;
    size_t length = size * n;
    if (buffer->capacity == 0) {
        /* The first chunk: the headers are in, so Content-Length is known. */
        curl_off_t expected = -1;
        curl_easy_getinfo(buffer->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &expected);
        if (expected > 0) {
            buffer->data = malloc((size_t)expected);
            buffer->capacity = buffer->data ? (size_t)expected : 0;
        }
    }
    if (buffer->size + length > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 65536;
        while (capacity < buffer->size + length) capacity *= 2;
        char *grown = realloc(buffer->data, capacity);
        if (!grown) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, ptr, length);
    buffer->size += length;
    return length;
}

typedef int (*on_done_t)(CURLM *, CURL *, void *);

/* Reads finished transfers; returns how many were re-added. */
static int collect(CURLM *multi, on_done_t on_done, void *context) {
    CURLMsg *message;
    int left, readded = 0;
    while ((message = curl_multi_info_read(multi, &left))) {
        if (message->msg != CURLMSG_DONE) continue;
        if (message->data.result != CURLE_OK) {
            fprintf(stderr, "transfer failed: %s\n", curl_easy_strerror(message->data.result));
            exit(1);
        }
        CURL *easy = message->easy_handle;
        curl_multi_remove_handle(multi, easy);
        readded += on_done(multi, easy, context);
    }
    return readded;
}

static void drive_perform(CURLM *multi, int *done, on_done_t on_done, void *context) {
    int running = 1;
    while (!*done) {
        curl_multi_perform(multi, &running);
        collect(multi, on_done, context);
        if (*done) break;
        curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
}

/* The epoll loop: libcurl says which sockets to watch and when to call back without activity; only
 * ready sockets are handed back to it. The driver (bench_epoll_*) is shared with the bare Swift loop. */
static void drive_epoll(CURLM *multi, bench_epoll_t *loop, int *done, on_done_t on_done, void *context) {
    bench_epoll_kick(loop);
    while (!*done) {
        collect(multi, on_done, context);
        if (*done) break;
        bench_epoll_wait(loop, 1000);
    }
}

/* h2: HTTP/2 over TLS by ALPN, streams multiplexed on few connections, the server's certificate from ca. */
typedef struct { const char *url; long remaining; long finished; long total; size_t bytes; int done; const char *ca; } gets_t;

static void setup_get(CURL *easy, gets_t *gets) {
    curl_easy_setopt(easy, CURLOPT_URL, gets->url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &gets->bytes);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (gets->ca) {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_CAINFO, gets->ca);
    }
}

static int next_get(CURLM *multi, CURL *easy, void *context) {
    gets_t *gets = context;
    gets->finished++;
    if (gets->finished == gets->total) gets->done = 1;
    if (gets->remaining > 0) {
        gets->remaining--;
        curl_multi_add_handle(multi, easy);
        return 1;
    }
    curl_easy_cleanup(easy);
    return 0;
}

static int single_done(CURLM *multi, CURL *easy, void *context) {
    (void)multi; (void)easy;
    *(int *)context = 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: see source\n"); return 2; }
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    bench_epoll_t *loop = NULL;
    int use_epoll = 0;
    double start = now(), cpu_start = cpu_seconds();
    size_t bytes = 0;
    if (strcmp(argv[1], "get") == 0 && argc >= 5) {
        long parallel = atol(argv[3]);
        use_epoll = argc >= 6 && strcmp(argv[5], "epoll") == 0;
        gets_t gets = { argv[4], atol(argv[2]), 0, atol(argv[2]), 0, 0,
                        argc >= 8 && strcmp(argv[6], "h2") == 0 ? argv[7] : NULL };
        /* One connection per request in flight, all kept for reuse. */
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, parallel < 64 ? 64L : parallel);
        if (gets.ca) curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);
        if (use_epoll) loop = bench_epoll_attach(multi);
        start = now();
        cpu_start = cpu_seconds();
        for (long i = 0; i < parallel && gets.remaining > 0; i++) {
            CURL *easy = curl_easy_init();
            setup_get(easy, &gets);
            gets.remaining--;
            curl_multi_add_handle(multi, easy);
        }
        if (use_epoll) drive_epoll(multi, loop, &gets.done, next_get, &gets);
        else drive_perform(multi, &gets.done, next_get, &gets);
        bytes = gets.bytes;
        if (gets.bytes == 0 || gets.finished != gets.total) { fprintf(stderr, "incomplete\n"); return 1; }
    } else if (strcmp(argv[1], "mem") == 0) {
        int done = 0;
        CURL *easy = curl_easy_init();
        buffer_t buffer = { 0 };
        buffer.easy = easy;
        curl_easy_setopt(easy, CURLOPT_URL, argv[2]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, to_memory);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &buffer);
        curl_multi_add_handle(multi, easy);
        drive_perform(multi, &done, single_done, &done);
        bytes = buffer.size;
        free(buffer.data);
        curl_easy_cleanup(easy);
    } else if (strcmp(argv[1], "file") == 0 && argc == 4) {
        FILE *file = fopen(argv[3], "wb");
        if (!file) { perror("fopen"); return 1; }
        int done = 0;
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, argv[2]);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, file);
        curl_multi_add_handle(multi, easy);
        drive_perform(multi, &done, single_done, &done);
        bytes = (size_t)ftell(file);
        fclose(file);
        curl_easy_cleanup(easy);
    } else {
        fprintf(stderr, "unknown mode\n");
        return 2;
    }
    double elapsed = now() - start;
    printf("%.6f %zu %ld %.6f\n", elapsed, bytes, peak_rss(), cpu_seconds() - cpu_start);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return 0;
}
