#define _GNU_SOURCE  // accept4
// A WebSocket server for the WebSocket benchmark: one thread, epoll, RFC 6455 framing without extensions,
// so that a message costs the server a small fraction of what it costs either client and the rows measure
// the clients (the Python `websockets` server the tests use is busy all the time on the many-socket rows).
// Bench-only: it trusts its clients (no UTF-8 check, no limits beyond a 16 MiB frame), answers what the
// benchmark asks and nothing else.
//
// Usage: websocket-server PORT (127.0.0.1). Paths:
//   /echo                 every data frame sent back as it came (unmasked), pings answered, close echoed
//   /count?n=N&size=S     N binary messages of S bytes (byte i is i % 251), then a close with 1000
//   anything without an Upgrade header: "200 ok" (the benchmark's health check)
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

enum { HEAD_LIMIT = 8192, FRAME_LIMIT = 16 << 20, COUNT_WATERMARK = 256 << 10 };

struct buffer { uint8_t *bytes; size_t length, capacity, start; };

struct connection {
    int fd;
    int open;            // the handshake is done
    int closing;         // close once the output is written
    int writable_wanted; // registered for EPOLLOUT
    int sent_close;      // a close frame is queued: nothing more is sent
    long count_left;     // /count: messages still to queue
    size_t count_size;
    uint8_t *pattern;    // /count: the message's bytes, made once
    struct buffer in, out;
};

static int epoll_fd;

static void reserve(struct buffer *buffer, size_t extra) {
    if (buffer->start > 0 && buffer->start == buffer->length) buffer->start = buffer->length = 0;
    if (buffer->length + extra <= buffer->capacity) return;
    if (buffer->start > 0) {  // slide the unread bytes to the front first
        memmove(buffer->bytes, buffer->bytes + buffer->start, buffer->length - buffer->start);
        buffer->length -= buffer->start;
        buffer->start = 0;
        if (buffer->length + extra <= buffer->capacity) return;
    }
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity < buffer->length + extra) capacity *= 2;
    buffer->bytes = realloc(buffer->bytes, capacity);
    if (!buffer->bytes) abort();
    buffer->capacity = capacity;
}

static void append(struct buffer *buffer, const void *bytes, size_t length) {
    reserve(buffer, length);
    memcpy(buffer->bytes + buffer->length, bytes, length);
    buffer->length += length;
}

static void append_frame_head(struct buffer *out, uint8_t first, size_t length) {
    uint8_t head[10];
    size_t size = 2;
    head[0] = first;
    if (length <= 125) {
        head[1] = (uint8_t)length;
    } else if (length <= 0xFFFF) {
        head[1] = 126;
        head[2] = (uint8_t)(length >> 8);
        head[3] = (uint8_t)length;
        size = 4;
    } else {
        head[1] = 127;
        for (int i = 0; i < 8; i++) head[2 + i] = (uint8_t)((uint64_t)length >> (56 - 8 * i));
        size = 10;
    }
    append(out, head, size);
}

static void watch(struct connection *c, int writable) {
    if (c->writable_wanted == writable) return;
    struct epoll_event event = { .events = EPOLLIN | (writable ? EPOLLOUT : 0), .data.ptr = c };
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &event);
    c->writable_wanted = writable;
}

static void drop(struct connection *c) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in.bytes);
    free(c->out.bytes);
    free(c->pattern);
    free(c);
}

/// Queues /count messages while the output holds less than the watermark (memory stays flat).
static void refill_count(struct connection *c) {
    while (c->count_left > 0 && c->out.length - c->out.start < COUNT_WATERMARK) {
        append_frame_head(&c->out, 0x82, c->count_size);
        append(&c->out, c->pattern, c->count_size);
        if (--c->count_left == 0) {
            static const uint8_t close_frame[] = { 0x88, 6, 0x03, 0xE8, 'd', 'o', 'n', 'e' };
            append(&c->out, close_frame, sizeof close_frame);
            c->sent_close = 1;
        }
    }
}

/// Writes what it can; returns -1 when the connection ended.
static int flush(struct connection *c) {
    for (;;) {
        if (c->count_left > 0) refill_count(c);
        size_t pending = c->out.length - c->out.start;
        if (pending == 0) break;
        ssize_t sent = send(c->fd, c->out.bytes + c->out.start, pending, MSG_NOSIGNAL);
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { watch(c, 1); return 0; }
        if (sent <= 0) return -1;
        c->out.start += (size_t)sent;
    }
    c->out.start = c->out.length = 0;
    if (c->closing) return -1;
    watch(c, 0);
    return 0;
}

static void handshake(struct connection *c, const char *head) {
    static const char *guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char path[1024] = "";
    sscanf(head, "GET %1023s", path);
    const char *key = NULL;
    size_t key_length = 0;
    for (const char *line = strstr(head, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Sec-WebSocket-Key:", 18) == 0) {
            key = line + 20;
            while (*key == ' ') key++;
            key_length = strcspn(key, "\r");
        }
    }
    if (!key) {
        static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        append(&c->out, ok, sizeof ok - 1);
        c->closing = 1;
        return;
    }
    char joined[256];
    if (key_length > 128) key_length = 128;
    snprintf(joined, sizeof joined, "%.*s%s", (int)key_length, key, guid);
    uint8_t digest[SHA_DIGEST_LENGTH];
    SHA1((const uint8_t *)joined, strlen(joined), digest);
    char accept[64];
    EVP_EncodeBlock((uint8_t *)accept, digest, SHA_DIGEST_LENGTH);
    char response[256];
    int length = snprintf(response, sizeof response,
                          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
    append(&c->out, response, (size_t)length);
    c->open = 1;
    if (strncmp(path, "/count", 6) == 0) {
        const char *n = strstr(path, "n="), *size = strstr(path, "size=");
        c->count_left = n ? atol(n + 2) : 10;
        c->count_size = size ? (size_t)atol(size + 5) : 32;
        if (c->count_left <= 0) c->count_left = 1;
        if (c->count_size > FRAME_LIMIT) c->count_size = FRAME_LIMIT;
        c->pattern = malloc(c->count_size + 1);
        if (!c->pattern) abort();
        for (size_t i = 0; i < c->count_size; i++) c->pattern[i] = (uint8_t)(i % 251);
    }
}

/// Handles the complete frames in the input; returns -1 to drop the connection.
static int handle_frames(struct connection *c) {
    for (;;) {
        uint8_t *bytes = c->in.bytes + c->in.start;
        size_t available = c->in.length - c->in.start, head = 2;
        if (available < 2) return 0;
        uint64_t length = bytes[1] & 0x7F;
        if (length == 126) head = 4; else if (length == 127) head = 10;
        int masked = bytes[1] & 0x80;
        if (masked) head += 4;
        if (available < head) return 0;
        if (length == 126) length = (uint64_t)bytes[2] << 8 | bytes[3];
        if (length == 127) { length = 0; for (int i = 0; i < 8; i++) length = length << 8 | bytes[2 + i]; }
        if (length > FRAME_LIMIT) return -1;
        if (available < head + length) return 0;
        uint8_t *payload = bytes + head;
        if (masked) {
            const uint8_t *mask = payload - 4;
            for (uint64_t i = 0; i < length; i++) payload[i] ^= mask[i & 3];
        }
        uint8_t opcode = bytes[0] & 0x0F;
        if (opcode == 0x8) {  // close: echoed (unless ours came first), then the connection ends once written
            if (!c->sent_close) {
                append_frame_head(&c->out, 0x88, length);
                append(&c->out, payload, length);
            }
            c->closing = 1;
        } else if (opcode == 0x9) {  // ping: pong
            append_frame_head(&c->out, 0x8A, length);
            append(&c->out, payload, length);
        } else if (opcode != 0xA && c->count_left == 0) {  // data: echoed as it came (fin and opcode kept)
            append_frame_head(&c->out, bytes[0] & 0x8F, length);
            append(&c->out, payload, length);
        }
        c->in.start += head + length;
        if (c->closing) return 0;
    }
}

static int readable(struct connection *c) {
    for (;;) {
        reserve(&c->in, 65536);
        ssize_t received = recv(c->fd, c->in.bytes + c->in.length, c->in.capacity - c->in.length, 0);
        if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (received <= 0) return -1;
        c->in.length += (size_t)received;
        if ((size_t)received < 65536) break;  // level-triggered: anything left is reported again
    }
    if (!c->open) {
        if (c->in.length >= HEAD_LIMIT) return -1;
        reserve(&c->in, 1);
        c->in.bytes[c->in.length] = 0;
        char *end = strstr((char *)c->in.bytes, "\r\n\r\n");
        if (!end) return 0;
        handshake(c, (char *)c->in.bytes);
        c->in.start = (size_t)(end + 4 - (char *)c->in.bytes);
    }
    if (c->open && handle_frames(c) < 0) return -1;
    return flush(c);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: websocket-server PORT\n"); return 2; }
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 1024) != 0) {
        perror("websocket-server");
        return 1;
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = { .events = EPOLLIN, .data.ptr = NULL };
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event);
    struct epoll_event ready[256];
    for (;;) {
        int count = epoll_wait(epoll_fd, ready, 256, -1);
        for (int i = 0; i < count; i++) {
            struct connection *c = ready[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
                    struct connection *accepted = calloc(1, sizeof *accepted);
                    accepted->fd = fd;
                    struct epoll_event added = { .events = EPOLLIN, .data.ptr = accepted };
                    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &added);
                }
                continue;
            }
            int result = 0;
            if (ready[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) result = readable(c);
            if (result == 0 && (ready[i].events & EPOLLOUT)) result = flush(c);
            if (result < 0) drop(c);
        }
    }
}
