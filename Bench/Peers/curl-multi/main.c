/* The C peer of the SessionEngine benchmark: libcurl's multi interface driven directly, the way a
 * careful C client would (one multi handle, reused easy handles, curl_multi_poll).
 * Usage:
 *   curl-multi get  <count> <parallel> <url>   small GETs, <parallel> in flight; body discarded after counting
 *   curl-multi mem  <url>                      one download into a growing memory buffer
 *   curl-multi file <url> <path>               one download written to a file
 * Prints one line: "<seconds> <bytes> <peak-rss-bytes>".
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long peak_rss(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss * 1024L;
}

typedef struct { char *data; size_t size, capacity; } buffer_t;

static size_t count_body(char *ptr, size_t size, size_t n, void *user) {
    (void)ptr;
    *(size_t *)user += size * n;
    return size * n;
}

static size_t to_memory(char *ptr, size_t size, size_t n, void *user) {
    buffer_t *buffer = user;
    size_t length = size * n;
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

static void drive(CURLM *multi, int *done, int (*on_done)(CURLM *, CURL *, void *), void *context) {
    int running = 1;
    while (running || !*done) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg == CURLMSG_DONE) {
                if (message->data.result != CURLE_OK) {
                    fprintf(stderr, "transfer failed: %s\n", curl_easy_strerror(message->data.result));
                    exit(1);
                }
                curl_multi_remove_handle(multi, message->easy_handle);
                if (on_done(multi, message->easy_handle, context)) running = 1;
            }
        }
        if (*done && !running) break;
        curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
}

typedef struct { const char *url; long remaining; long finished; long total; size_t bytes; int done; } gets_t;

static void setup_get(CURL *easy, gets_t *gets) {
    curl_easy_setopt(easy, CURLOPT_URL, gets->url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, count_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &gets->bytes);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
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
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);
    double start = now();
    size_t bytes = 0;
    if (strcmp(argv[1], "get") == 0 && argc == 5) {
        gets_t gets = { argv[4], atol(argv[2]), 0, atol(argv[2]), 0, 0 };
        long parallel = atol(argv[3]);
        for (long i = 0; i < parallel && gets.remaining > 0; i++) {
            CURL *easy = curl_easy_init();
            setup_get(easy, &gets);
            gets.remaining--;
            curl_multi_add_handle(multi, easy);
        }
        drive(multi, &gets.done, next_get, &gets);
        bytes = gets.bytes;
    } else if (strcmp(argv[1], "mem") == 0) {
        buffer_t buffer = { 0 };
        int done = 0;
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_URL, argv[2]);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, to_memory);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &buffer);
        curl_multi_add_handle(multi, easy);
        drive(multi, &done, single_done, &done);
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
        drive(multi, &done, single_done, &done);
        bytes = (size_t)ftell(file);
        fclose(file);
        curl_easy_cleanup(easy);
    } else {
        fprintf(stderr, "unknown mode\n");
        return 2;
    }
    double elapsed = now() - start;
    printf("%.6f %zu %ld\n", elapsed, bytes, peak_rss());
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return 0;
}
