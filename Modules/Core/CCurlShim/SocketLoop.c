// The engine's wait: libcurl's socket interface (curl_multi_socket_action) over one epoll set.
//
// libcurl names the sockets it wants watched through its socket callback and its next deadline through
// its timer callback; a wake-up hands libcurl only the sockets that are ready, so a turn costs what is
// ready, not what is open (curl_multi_perform visits every transfer, and poll(2) every socket, each turn).
//
// Registrations outlive libcurl's interest: when libcurl stops watching a socket (CURL_POLL_REMOVE, which
// libcurl 7.88 says after every request on a kept-alive connection) the socket stays in the set as it
// was, so the next request on that connection, which asks for the same events, costs no epoll_ctl at all.
// A socket that turns ready while libcurl does not want it is taken out then; a socket that closes leaves
// the set by itself, and the close callback forgets its registration (its number may come back).
//
// One loop drives several multi handles (the engine spreads its transfers over them, see
// SessionEngine's `multis`): one epoll set, each socket handed to the multi handle that asked for it,
// each multi handle's timer kept apart.
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "CCurlShim.h"

/// The most ready sockets one wait takes; the rest stay ready for the next (level-triggered).
#define AFC_READY_PER_WAIT 256
/// The most multi handles one loop drives (socket owners are kept in 16 bits).
#define AFC_SOCKET_LOOP_MAXIMUM_MULTIS 4096

/// One multi handle the loop drives: libcurl's socket and timer callbacks get this as their data.
struct afc_shard {
    afc_socket_loop_t *loop;
    CURLM *multi;
    int index;
    /// libcurl's next deadline for this multi handle in CLOCK_MONOTONIC nanoseconds, -1: none.
    int64_t deadline_ns;
    /// libcurl acted on this multi handle since the engine last read its messages.
    int acted;
};

struct afc_socket_loop {
    /// Sockets libcurl has open through this loop's handles (the open and close callbacks keep it).
    long open_sockets;
    int epoll;
    int wake;
    /// A descriptor watched for readability beside libcurl's (the upgraded connections' epoll), -1: none.
    int extra;
    /// The multi handles, in the order they were added (each allocated once: libcurl holds its address).
    struct afc_shard **shards;
    int shard_count;
    /// Per socket number: the events registered in the set (0: not registered), the events libcurl
    /// wants now (0: none) and the multi handle that wants them.
    unsigned char *registered;
    unsigned char *wanted;
    unsigned short *owner;
    size_t capacity;
    /// What the last wait found, handed to libcurl by afc_socket_loop_dispatch.
    struct epoll_event ready[AFC_READY_PER_WAIT];
    int ready_count;
};

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// Makes room for socket number `fd` in the tables; 0 when memory ran out.
static int reserve(afc_socket_loop_t *loop, curl_socket_t fd) {
    if (fd < 0) return 0;
    if ((size_t)fd < loop->capacity) return 1;
    size_t capacity = loop->capacity ? loop->capacity : 256;
    while (capacity <= (size_t)fd) capacity *= 2;
    unsigned char *registered = realloc(loop->registered, capacity);
    if (!registered) return 0;
    loop->registered = registered;
    unsigned char *wanted = realloc(loop->wanted, capacity);
    if (!wanted) return 0;
    loop->wanted = wanted;
    unsigned short *owner = realloc(loop->owner, capacity * sizeof *owner);
    if (!owner) return 0;
    loop->owner = owner;
    memset(loop->registered + loop->capacity, 0, capacity - loop->capacity);
    memset(loop->wanted + loop->capacity, 0, capacity - loop->capacity);
    memset(loop->owner + loop->capacity, 0, (capacity - loop->capacity) * sizeof *owner);
    loop->capacity = capacity;
    return 1;
}

static int socket_changed(CURL *easy, curl_socket_t fd, int what, void *user, void *socket_pointer) {
    (void)easy; (void)socket_pointer;
    struct afc_shard *shard = user;
    afc_socket_loop_t *loop = shard->loop;
    if (!reserve(loop, fd)) return -1;  // libcurl fails the transfer (out of memory)
    unsigned char events = 0;
    if (what != CURL_POLL_REMOVE) {
        if (what & CURL_POLL_IN) events |= EPOLLIN;
        if (what & CURL_POLL_OUT) events |= EPOLLOUT;
    }
    loop->wanted[fd] = events;
    if (events) loop->owner[fd] = (unsigned short)shard->index;
    // Nothing wanted: the registration stays as it is (see the top of the file).
    if (events == 0 || events == loop->registered[fd]) return 0;
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.fd = fd;
    int operation = loop->registered[fd] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(loop->epoll, operation, fd, &event) != 0) {
        // A number libcurl reuses after a close this loop did not see: register it anew.
        if (!(operation == EPOLL_CTL_MOD && errno == ENOENT && epoll_ctl(loop->epoll, EPOLL_CTL_ADD, fd, &event) == 0)
            && !(operation == EPOLL_CTL_ADD && errno == EEXIST && epoll_ctl(loop->epoll, EPOLL_CTL_MOD, fd, &event) == 0)) {
            loop->registered[fd] = 0;
            return -1;
        }
    }
    loop->registered[fd] = events;
    return 0;
}

static int timer_changed(CURLM *multi, long timeout_ms, void *user) {
    (void)multi;
    struct afc_shard *shard = user;
    shard->deadline_ns = timeout_ms < 0 ? -1 : monotonic_ns() + (int64_t)timeout_ms * 1000000;
    return 0;
}

afc_socket_loop_t *afc_socket_loop_create(void) {
    afc_socket_loop_t *loop = calloc(1, sizeof *loop);
    if (!loop) return NULL;
    loop->extra = -1;
    loop->epoll = epoll_create1(EPOLL_CLOEXEC);
    loop->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.fd = loop->wake;
    if (loop->epoll < 0 || loop->wake < 0 || epoll_ctl(loop->epoll, EPOLL_CTL_ADD, loop->wake, &event) != 0) {
        if (loop->epoll >= 0) close(loop->epoll);
        if (loop->wake >= 0) close(loop->wake);
        free(loop);
        return NULL;
    }
    return loop;
}

int afc_socket_loop_add_multi(afc_socket_loop_t *loop, CURLM *multi) {
    if (loop->shard_count >= AFC_SOCKET_LOOP_MAXIMUM_MULTIS) return -1;
    struct afc_shard **shards = realloc(loop->shards, (size_t)(loop->shard_count + 1) * sizeof *shards);
    if (!shards) return -1;
    loop->shards = shards;
    struct afc_shard *shard = calloc(1, sizeof *shard);
    if (!shard) return -1;
    shard->loop = loop;
    shard->multi = multi;
    shard->index = loop->shard_count;
    shard->deadline_ns = -1;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_changed);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, shard);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_changed);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, shard);
    loop->shards[loop->shard_count] = shard;
    return loop->shard_count++;
}

void afc_socket_loop_destroy(afc_socket_loop_t *loop) {
    if (!loop) return;
    close(loop->epoll);
    close(loop->wake);
    for (int index = 0; index < loop->shard_count; index++) free(loop->shards[index]);
    free(loop->shards);
    free(loop->registered);
    free(loop->wanted);
    free(loop->owner);
    free(loop);
}

void afc_socket_loop_wake(afc_socket_loop_t *loop) {
    uint64_t one = 1;
    // A counter that cannot take more (2^64 - 2 unread) still leaves the descriptor readable.
    ssize_t written = write(loop->wake, &one, sizeof one);
    (void)written;
}

long *afc_socket_loop_open_sockets(afc_socket_loop_t *loop) { return &loop->open_sockets; }

int afc_socket_loop_watch_extra(afc_socket_loop_t *loop, int descriptor) {
    if (loop->extra == descriptor) return 0;
    if (loop->extra >= 0) epoll_ctl(loop->epoll, EPOLL_CTL_DEL, loop->extra, NULL);
    loop->extra = -1;
    if (descriptor < 0) return 0;
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.fd = descriptor;
    if (epoll_ctl(loop->epoll, EPOLL_CTL_ADD, descriptor, &event) != 0) return -1;
    loop->extra = descriptor;
    return 0;
}

int afc_socket_loop_run_due_timers(afc_socket_loop_t *loop) {
    int ran = 0;
    int64_t now = -1;
    for (int index = 0; index < loop->shard_count; index++) {
        struct afc_shard *shard = loop->shards[index];
        if (shard->deadline_ns < 0) continue;
        if (now < 0) now = monotonic_ns();
        if (shard->deadline_ns > now) continue;
        shard->deadline_ns = -1;  // libcurl sets the next one from inside the call
        shard->acted = 1;
        int running = 0;
        curl_multi_socket_action(shard->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        ran = 1;
    }
    return ran;
}

int afc_socket_loop_milliseconds_to_deadline(const afc_socket_loop_t *loop) {
    int64_t earliest = -1;
    for (int index = 0; index < loop->shard_count; index++) {
        int64_t deadline = loop->shards[index]->deadline_ns;
        if (deadline >= 0 && (earliest < 0 || deadline < earliest)) earliest = deadline;
    }
    if (earliest < 0) return -1;
    int64_t remaining = earliest - monotonic_ns();
    if (remaining <= 0) return 0;
    // Rounded up: waking a little before the deadline would only wait again.
    int64_t milliseconds = (remaining + 999999) / 1000000;
    return milliseconds > INT32_MAX ? INT32_MAX : (int)milliseconds;
}

int afc_socket_loop_next_acted(afc_socket_loop_t *loop) {
    for (int index = 0; index < loop->shard_count; index++) {
        if (loop->shards[index]->acted) {
            loop->shards[index]->acted = 0;
            return index;
        }
    }
    return -1;
}

int afc_socket_loop_wait(afc_socket_loop_t *loop, int wait_ms) {
    int count = epoll_wait(loop->epoll, loop->ready, AFC_READY_PER_WAIT, wait_ms);
    loop->ready_count = count > 0 ? count : 0;
    if (count < 0) return errno == EINTR ? 0 : -1;
    int found = 0;
    for (int index = 0; index < count; index++) {
        int fd = loop->ready[index].data.fd;
        if (fd == loop->wake) {
            uint64_t drained;
            ssize_t got = read(loop->wake, &drained, sizeof drained);
            (void)got;
            found |= AFC_SOCKET_LOOP_WOKEN;
        } else if (fd == loop->extra) {
            found |= AFC_SOCKET_LOOP_EXTRA_READY;
        } else {
            found |= AFC_SOCKET_LOOP_SOCKETS_READY;
        }
    }
    return found;
}

void afc_socket_loop_dispatch(afc_socket_loop_t *loop) {
    int count = loop->ready_count;
    loop->ready_count = 0;
    for (int index = 0; index < count; index++) {
        int fd = loop->ready[index].data.fd;
        uint32_t events = loop->ready[index].events;
        if (fd == loop->wake || fd == loop->extra) continue;
        if ((size_t)fd >= loop->capacity || loop->wanted[fd] == 0) {
            // Ready while libcurl does not watch it (a kept-alive connection the server closed, bytes
            // nobody asked for): out of the set, or it would wake every wait. libcurl finds out itself
            // when it next uses the connection.
            epoll_ctl(loop->epoll, EPOLL_CTL_DEL, fd, NULL);
            if ((size_t)fd < loop->capacity) loop->registered[fd] = 0;
            continue;
        }
        int flags = 0;
        if (events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) flags |= CURL_CSELECT_IN;
        if (events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
        if (events & EPOLLERR) flags |= CURL_CSELECT_ERR;
        struct afc_shard *shard = loop->shards[loop->owner[fd]];
        shard->acted = 1;
        int running = 0;
        curl_multi_socket_action(shard->multi, fd, flags, &running);
    }
}

static curl_socket_t counted_open(void *user, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    afc_socket_loop_t *loop = user;
    curl_socket_t descriptor = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (descriptor != CURL_SOCKET_BAD) loop->open_sockets += 1;
    return descriptor;
}

static int counted_close(void *user, curl_socket_t descriptor) {
    afc_socket_loop_t *loop = user;
    loop->open_sockets -= 1;
    // Closing takes the socket out of the epoll set; its number may come back for another socket.
    if (descriptor >= 0 && (size_t)descriptor < loop->capacity) {
        loop->registered[descriptor] = 0;
        loop->wanted[descriptor] = 0;
        loop->owner[descriptor] = 0;
    }
    return close(descriptor);
}

void afc_easy_count_sockets(CURL *handle, afc_socket_loop_t *loop) {
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, counted_open);
    curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, loop);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, counted_close);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, loop);
}
