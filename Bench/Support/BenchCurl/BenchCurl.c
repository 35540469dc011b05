#include "BenchCurl.h"
#include <malloc.h>

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

void bench_easy_set_url(CURL *easy, const char *url) { curl_easy_setopt(easy, CURLOPT_URL, url); }

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
