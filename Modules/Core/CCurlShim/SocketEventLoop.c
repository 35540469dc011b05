// The engine's wait: libcurl's socket interface (curl_multi_socket_action) over one epoll set.
//
// libcurl names the sockets to watch through its socket callback and its next deadline through its timer
// callback; the loop hands back only the sockets that are ready, so a wake-up costs what is ready, not
// what exists (curl_multi_perform + curl_multi_poll rebuild and walk every transfer's sockets each time).
// An eventfd in the same set wakes the engine for commands from other threads.
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "CCurlShim.h"

struct afc_socket_loop {
    CURLM *multi;
    int epoll;
    int wake;
    /// libcurl's next deadline in CLOCK_MONOTONIC milliseconds, -1 for none.
    int64_t deadline_ms;
    int running;
};

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static int socket_changed(CURL *easy, curl_socket_t fd, int what, void *user, void *socket_pointer) {
    (void)easy; (void)socket_pointer;
    afc_socket_loop_t *loop = user;
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

static int timer_changed(CURLM *multi, long timeout_ms, void *user) {
    (void)multi;
    afc_socket_loop_t *loop = user;
    loop->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    return 0;
}

afc_socket_loop_t *afc_socket_loop_create(CURLM *multi) {
    afc_socket_loop_t *loop = calloc(1, sizeof *loop);
    if (!loop) return NULL;
    loop->multi = multi;
    loop->deadline_ms = -1;
    loop->epoll = epoll_create1(EPOLL_CLOEXEC);
    loop->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event event = { .events = EPOLLIN, .data.fd = loop->wake };
    if (loop->epoll < 0 || loop->wake < 0 || epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &event) != 0) {
        if (loop->epoll >= 0) close(loop->epoll);
        if (loop->wake >= 0) close(loop->wake);
        free(loop);
        return NULL;
    }
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_changed);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, loop);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_changed);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, loop);
    return loop;
}

void afc_socket_loop_wake(afc_socket_loop_t *loop) {
    uint64_t one = 1;
    // A full counter (2^64 - 2 wake-ups unread) still leaves the fd readable: nothing is lost.
    ssize_t written = write(loop->wake, &one, sizeof one);
    (void)written;
}

/// Takes libcurl's own view of its next timer. libcurl calls the timer callback only when the deadline
/// changes, so a deadline that has fired must be re-read: keeping it would spin the wait at 0 ms, and
/// dropping it would lose a timer libcurl still holds (one our millisecond clock saw as due a little
/// before libcurl's microsecond clock did).
static void refresh_deadline(afc_socket_loop_t *loop) {
    long timeout_ms = -1;
    curl_multi_timeout(loop->multi, &timeout_ms);
    loop->deadline_ms = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

int afc_socket_loop_run_due_timers(afc_socket_loop_t *loop) {
    if (loop->deadline_ms < 0 || loop->deadline_ms > now_ms()) return 0;
    curl_multi_socket_action(loop->multi, CURL_SOCKET_TIMEOUT, 0, &loop->running);
    refresh_deadline(loop);
    return 1;
}

int afc_socket_loop_milliseconds_to_deadline(const afc_socket_loop_t *loop) {
    if (loop->deadline_ms < 0) return -1;
    int64_t remaining = loop->deadline_ms - now_ms();
    return remaining <= 0 ? 0 : remaining > INT32_MAX ? INT32_MAX : (int)remaining;
}

int afc_socket_loop_wait(afc_socket_loop_t *loop, int wait_ms) {
    struct epoll_event events[64];
    int ready = epoll_wait(loop->epoll, events, 64, wait_ms);
    if (ready < 0) return errno == EINTR ? 0 : -1;
    for (int index = 0; index < ready; index++) {
        int fd = events[index].data.fd;
        if (fd == loop->wake) {
            uint64_t count;
            ssize_t got = read(loop->wake, &count, sizeof count);
            (void)got;
            continue;
        }
        int flags = 0;
        if (events[index].events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
        if (events[index].events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (events[index].events & EPOLLERR) flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(loop->multi, fd, flags, &loop->running);
    }
    return ready;
}

void afc_socket_loop_destroy(afc_socket_loop_t *loop) {
    if (!loop) return;
    curl_multi_setopt(loop->multi, CURLMOPT_SOCKETFUNCTION, NULL);
    curl_multi_setopt(loop->multi, CURLMOPT_TIMERFUNCTION, NULL);
    close(loop->epoll);
    close(loop->wake);
    free(loop);
}
