#!/usr/bin/env python3
"""Fault server for the integration tests: misbehaving HTTP endpoints, Python standard library only.

One request per connection (every response says `Connection: close`). nginx proxies to it with
`proxy_buffering off`, so clients of nginx see exactly these faults.

    GET  /health                 200 "ok"
    GET  /stall                  status line and headers (Content-Length: 100) sent, then nothing, ever
    GET  /stall-before-headers   nothing at all is sent, ever
    GET  /drop                   headers promise Content-Length: 100000, 40000 body bytes are sent, then the
                                 connection is closed (body byte i is i % 251)
    POST|PUT /upload-sink        reads the whole body (Content-Length or chunked) and answers 200 with
                                 {"method": ..., "bytes": N, "sha256": hex, "contentType": ...}

Hostile endpoints, one behaviour each (nginx serves /hostile/ on every port, so the same endpoint is
reachable from several origins and over TLS):
    /hostile/set-cookie?cookie=C[&cookie=C...]   200 with a Set-Cookie: C line for each
    /hostile/cookie-flood?count=N[&attributes=A]   200 with N Set-Cookie lines `c<i in base 36>=1A`
                                 (A default ";Max-Age=99": persistent cookies), no spaces, so 10,000 fit
                                 in libcurl's 300 KiB header bound
    /hostile/echo-headers        200 {"method", "path", "headers": {lowercased name: value}}
    /hostile/echo-header-lines   200 {"lines": [[name, value], ...]}: the request's header lines as sent
    /hostile/redirect?to=U[&status=S][&body=endless]   S (default 302) with Location: U; with
                                 body=endless, a chunked body of 64 KiB chunks that never ends
    /hostile/basic-auth?user=U&pass=P[&then=T]   401 (WWW-Authenticate: Basic realm="hostile") unless the
                                 request carries Basic U:P; then 302 to T, or 200. Body {"authorization": sent or null}
    /hostile/gzip-bomb           1 GiB of zeros, gzip-compressed (about 4.5 MB on the wire, Content-Length set)
    /hostile/endless             a chunked body of 64 KiB chunks that never ends
    /hostile/event-stream?count=N&interval=S[&type=jsonl][&flood=1]   N server-sent events (or JSON lines)
                                 S seconds apart, then close; flood=1: one data line that never ends
    /hostile/sse-retry-zero?key=K   an event stream of `retry: 0` and one event (id: the request's number for K),
                                 then close: a client that obeys it without a floor reconnects at once, forever
    /hostile/sse-retry-zero-count?key=K   200 {"connections": N, "gaps": [seconds between one request for K
                                 and the next, by the server's monotonic clock]}
    /hostile/huge-length         Content-Length: 2147483648, 64 KiB sent, then nothing until the client leaves
    /hostile/trickle?bytes=N&interval=S   Content-Length N, one byte ("x") every S seconds
    /hostile/length?announce=A&send=N[&hold=1]   Content-Length A, then N body bytes (byte i is i % 251), then
                                 the connection closed (with hold=1: nothing more until the client leaves)
    /hostile/range-liar?size=N   whatever the Range: 206, Content-Range: bytes 0-(N-1)/N, ETag "liar", N bytes "L"
    /hostile/huge-header?size=N  200 with one header line X-Huge of N bytes
    /hostile/header-flood?lines=N   200 with N distinct header lines of 1,000 bytes each
    /hostile/many-headers?count=N   200 with N distinct headers H<i>: <i>
    /hostile/folded-first-header 200 whose first header line begins with a space (an obs-fold with nothing
                                 to fold into; libcurl 7.88.1 read freed memory on a reused handle,
                                 curl/curl#11101). Only direct: nginx refuses to pass it on
    /hostile/bad-version         a status line naming HTTP/1.7
    /hostile/slow?delay=S        200 "slow" after S seconds (a busy connection beside fast requests)
    /hostile/hold?key=K          held until /hostile/release?key=K comes (at most 60 s), then 200 {"released": true}
                                 ({"released": false} after 60 s);
                                 the connection closed with no response instead when the release says abort=1
    /hostile/release?key=K[&abort=1]   releases K's hold (one that has not arrived yet is released on arrival);
                                 200 {"waiting": whether a request was held}
    /hostile/holding?key=K       200 "true" while a request is held for K, else "false"
    /hostile/slow-sink?rate=B    reads a POST or PUT body at B bytes a second, then answers {"bytes": N}
    /hostile/mutated?seed=N[&kind=K]   one of eight realistic responses (a cacheable 200 with dates, a 503
                                 with Retry-After, a redirect, a gzip-compressed chunked body, a 401, a 206,
                                 a 304, a 200 with Set-Cookie; K picks one) with one to three mutations drawn
                                 from a generator seeded with N: the same N is the same bytes, every run.
                                 kind=cookie-flood (only when asked for): a 200 with 1,000 to 5,000 Set-Cookie
                                 lines of every shape (domains, paths, prefixes, dates, Secure), mutated too

Asked as an HTTP proxy (a request target in absolute form, `GET http://any.name/path`), it serves the path
itself, answering for any host name.

Usage: fault_server.py --port PORT [--pid-file PATH]
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import sys
import time
import urllib.parse
import zlib

DROP_PROMISED = 100_000
# Requests per key seen by /hostile/flaky (the retry tests count attempts with it).
FLAKY_COUNTS = {}
DROP_SENT = 40_000
# When /hostile/sse-retry-zero received each request, by key (monotonic seconds).
SSE_RETRY_ZERO_TIMES = {}
# /hostile/hold's requests by key: the event its release sets, and whether that release aborts.
HOLDS = {}
HOLD_LIMIT_SECONDS = 60
READ_CHUNK = 256 * 1024


_gzip_bomb = None


def make_gzip_bomb():
    """1 GiB of zeros as one gzip member (level 1: about 4.5 MB, made in under 2 s)."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    parts = [compressor.compress(chunk) for _ in range(1024)]
    parts.append(compressor.flush())
    return b"".join(parts)


def hold_entry(key):
    """/hostile/hold's state for `key`, made by whichever of the hold and its release comes first."""
    return HOLDS.setdefault(key, {"event": asyncio.Event(), "abort": False, "waiting": False})


async def hostile(path, query, method, headers, reader, writer, lines):
    """The /hostile/ endpoints; returns False for an unknown path."""
    def arg(name, default=None):
        return query.get(name, [default])[0]

    if path == "/hostile/set-cookie":
        body = b"{}\n"
        cookies = [("Set-Cookie", value) for value in query.get("cookie", [])]
        writer.write(response_head(200, "OK", cookies + [("Content-Type", "application/json"),
                                                         ("Content-Length", str(len(body)))]) + body)
    elif path == "/hostile/cookie-flood":
        # Compact lines (`Set-Cookie:c<i in base 36>=1;Max-Age=99`), so that 10,000 of them fit in the
        # 300 KiB libcurl 7.88 allows a response's header block.
        count = int(arg("count", "10000"))
        attributes = arg("attributes", ";Max-Age=99").encode("latin-1")
        body = b"{}\n"
        head = [b"HTTP/1.1 200 OK"] + [b"Set-Cookie:c%s=1%s" % (base36(i), attributes) for i in range(count)]
        head += [b"Content-Length: %d" % len(body), b"Connection: close"]
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
    elif path == "/hostile/echo-headers":
        await send_json(writer, 200, "OK", {"method": method, "path": path, "headers": headers})
    elif path == "/hostile/echo-header-lines":
        await send_json(writer, 200, "OK", {"lines": lines})
    elif path == "/hostile/redirect":
        status = int(arg("status", "302"))
        if arg("body") == "endless":
            writer.write(response_head(status, "Redirect", [("Location", arg("to")), ("Transfer-Encoding", "chunked")]))
            chunk = b"%x\r\n" % 65536 + bytes(65536) + b"\r\n"
            while True:
                writer.write(chunk)
                await writer.drain()
        writer.write(response_head(status, "Redirect", [("Location", arg("to")), ("Content-Length", "0")]))
    elif path == "/hostile/basic-auth":
        expected = "Basic " + base64.b64encode(f"{arg('user')}:{arg('pass')}".encode()).decode()
        sent = headers.get("authorization")
        if sent != expected:
            body = (json.dumps({"authorization": sent}) + "\n").encode()
            writer.write(response_head(401, "Unauthorized", [
                ("WWW-Authenticate", 'Basic realm="hostile"'), ("Content-Type", "application/json"),
                ("Content-Length", str(len(body)))]) + body)
        elif arg("then"):
            writer.write(response_head(302, "Found", [("Location", arg("then")), ("Content-Length", "0")]))
        else:
            await send_json(writer, 200, "OK", {"authorization": sent})
    elif path == "/hostile/gzip-bomb":
        body = await _gzip_bomb
        writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                               ("Content-Encoding", "gzip"), ("Content-Length", str(len(body)))]))
        writer.write(body)
    elif path == "/hostile/endless":
        writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                               ("Transfer-Encoding", "chunked")]))
        chunk = b"%x\r\n" % 65536 + bytes(65536) + b"\r\n"
        while True:
            writer.write(chunk)
            await writer.drain()
    elif path == "/hostile/event-stream":
        # `count` server-sent events (id i, event tick, data "event i"), `interval` seconds apart, then
        # the connection closes; with flood=1, one data line that never ends.
        kind = "text/event-stream" if arg("type", "sse") == "sse" else "application/x-ndjson"
        writer.write(response_head(200, "OK", [("Content-Type", kind), ("Cache-Control", "no-store")]))
        await writer.drain()
        if arg("flood", "0") == "1":
            writer.write(b"data: ")
            while True:
                writer.write(b"x" * 65536)
                await writer.drain()
        count, interval = int(arg("count", "3")), float(arg("interval", "0.1"))
        for i in range(1, count + 1):
            if kind == "text/event-stream":
                writer.write(b"id: %d\r\nevent: tick\r\ndata: event %d\r\n\r\n" % (i, i))
            else:
                writer.write(b'{"n":%d}\n' % i)
            await writer.drain()
            await asyncio.sleep(interval)
    elif path == "/hostile/sse-retry-zero":
        # The reconnection storm of issue 42: `retry: 0` asks for no delay, and the one event each
        # connection brings resets a client's count of fruitless reconnections.
        times = SSE_RETRY_ZERO_TIMES.setdefault(arg("key", ""), [])
        times.append(time.monotonic())
        writer.write(response_head(200, "OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")]))
        writer.write(b"retry: 0\n\nid: %d\ndata: connection %d\n\n" % (len(times), len(times)))
    elif path == "/hostile/sse-retry-zero-count":
        times = SSE_RETRY_ZERO_TIMES.get(arg("key", ""), [])
        await send_json(writer, 200, "OK", {"connections": len(times),
                                             "gaps": [later - earlier for earlier, later in zip(times, times[1:])]})
    elif path == "/hostile/huge-length":
        writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                               ("Content-Length", str(1 << 31))]) + bytes(65536))
        await writer.drain()
        await reader.read()
    elif path == "/hostile/length":
        announced, sent = int(arg("announce", "0")), int(arg("send", "0"))
        writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                               ("Content-Length", str(announced))]))
        pattern = bytes(range(251)) * 1044  # 262,044 bytes, a whole number of patterns
        while sent > 0:
            writer.write(pattern[:min(sent, len(pattern))])
            sent -= len(pattern)
            await writer.drain()
        if arg("hold") == "1":
            await reader.read()
    elif path == "/hostile/trickle":
        count, interval = int(arg("bytes", "3")), float(arg("interval", "1"))
        writer.write(response_head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", str(count))]))
        await writer.drain()
        for _ in range(count):
            await asyncio.sleep(interval)
            writer.write(b"x")
            await writer.drain()
    elif path == "/hostile/flaky":
        # 503 (with `retry-after` as Retry-After and `reason` as the reason phrase, when given) for the
        # first `failures` requests of `key`, then 200 (with Cache-Control: max-age=M for `max-age`); the body is the attempt number. /hostile/flaky-count?key= tells the count.
        key = arg("key", "")
        FLAKY_COUNTS[key] = FLAKY_COUNTS.get(key, 0) + 1
        count = FLAKY_COUNTS[key]
        body = f"attempt {count}".encode()
        if count <= int(arg("failures", "0")):
            extra = [("Retry-After", arg("retry-after"))] if arg("retry-after") else []
            writer.write(response_head(503, arg("reason", "Service Unavailable"), extra + [
                ("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]) + body)
        else:
            cache = [("Cache-Control", f"max-age={arg('max-age')}")] if arg("max-age") else []
            writer.write(response_head(200, "OK", cache + [
                ("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]) + body)
    elif path == "/hostile/flaky-count":
        body = str(FLAKY_COUNTS.get(arg("key", ""), 0)).encode()
        writer.write(response_head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]) + body)
    elif path == "/hostile/range-liar":
        size = int(arg("size", "100"))
        writer.write(response_head(206, "Partial Content", [
            ("Content-Type", "application/octet-stream"), ("ETag", '"liar"'),
            ("Content-Range", f"bytes 0-{size - 1}/{size}"), ("Content-Length", str(size))]) + b"L" * size)
    elif path == "/hostile/range-416":
        # Without Range: `size` bytes. With one: 416 claiming the resource has `claim` bytes (default: the
        # truth), the answer to a resume at the last byte; a liar claims another length.
        size = int(arg("size", "100"))
        if "range" not in headers:
            writer.write(response_head(200, "OK", [
                ("Content-Type", "application/octet-stream"), ("ETag", '"r416"'),
                ("Content-Length", str(size))]) + b"R" * size)
        else:
            body = b"range not satisfiable"
            writer.write(response_head(416, "Range Not Satisfiable", [
                ("Content-Range", f"bytes */{arg('claim', str(size))}"), ("Content-Type", "text/plain"),
                ("Content-Length", str(len(body)))]) + body)
    elif path == "/hostile/huge-header":
        size = int(arg("size", "204800"))
        writer.write(response_head(200, "OK", [("X-Huge", "h" * size), ("Content-Length", "0")]))
    elif path == "/hostile/header-flood":
        lines = int(arg("lines", "1500"))
        flood = [(f"X-Flood-{i}", "f" * 1000) for i in range(lines)]
        writer.write(response_head(200, "OK", flood + [("Content-Length", "0")]))
    elif path == "/hostile/folded-first-header":
        writer.write(b"HTTP/1.1 200 OK\r\n X-Folded: nothing to fold into\r\nContent-Length: 2\r\n"
                     b"Connection: close\r\n\r\nok")
    elif path == "/hostile/bad-version":
        writer.write(b"HTTP/1.7 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    elif path == "/hostile/slow-sink":
        count = await read_body(reader, headers, lambda data: None, rate=float(arg("rate", "1000000")))
        await send_json(writer, 200, "OK", {"bytes": count})
    elif path == "/hostile/slow":
        await asyncio.sleep(float(arg("delay", "5")))
        writer.write(response_head(200, "OK", [("Content-Length", "4")]) + b"slow")
    elif path == "/hostile/hold":
        hold = hold_entry(arg("key", ""))
        hold["waiting"] = True
        try:
            await asyncio.wait_for(hold["event"].wait(), HOLD_LIMIT_SECONDS)
        except asyncio.TimeoutError:
            pass
        HOLDS.pop(arg("key", ""), None)
        if not hold["abort"]:
            await send_json(writer, 200, "OK", {"released": hold["event"].is_set()})
    elif path == "/hostile/holding":
        body = b"true" if HOLDS.get(arg("key", ""), {}).get("waiting") else b"false"
        writer.write(response_head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))]) + body)
    elif path == "/hostile/release":
        hold = hold_entry(arg("key", ""))
        hold["abort"] = arg("abort") == "1"
        hold["event"].set()
        await send_json(writer, 200, "OK", {"waiting": hold["waiting"]})
    elif path == "/hostile/mutated":
        writer.write(mutated_response(int(arg("seed", "0")), arg("kind")))
    elif path == "/hostile/many-headers":
        count = int(arg("count", "15000"))
        many = [(f"H{i}", str(i)) for i in range(count)]
        writer.write(response_head(200, "OK", many + [("Content-Length", "0")]))
    else:
        return False
    return True


def base36(number):
    """`number` in base 36, lowercase (0-9a-z)."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = digits[digit] + text
        if number == 0:
            return text.encode("ascii")


MUTATION_KINDS = ["cacheable", "retry-after", "redirect", "gzip-chunked", "unauthorized", "partial",
                  "not-modified", "set-cookie"]
HOSTILE_NUMBERS = [b"99999999999", b"2147485547", b"300000000", b"-1", b"18446744073709551616", b"0",
                   b"999999999999999999999999999", b"+5", b"1e9", b"0x10"]


def mutation_template(rng, kind, seed):
    """The unmutated response of `kind`: status line, header lines and body."""
    date = b"Sun, 06 Nov 1994 08:49:37 GMT"
    body = b'{"seed": %d, "ok": true}\n' % seed
    if kind == "cacheable":
        lines = [b"HTTP/1.1 200 OK", b"Date: " + date, b"Expires: Sun, 06 Nov 2094 08:49:37 GMT",
                 b"Last-Modified: " + date, b"Cache-Control: public, max-age=600", b'ETag: "v%d"' % seed,
                 b"Age: 5", b"Content-Type: application/json"]
    elif kind == "retry-after":
        body = b"busy\n"
        after = b"1" if rng.random() < 0.5 else b"Sun, 06 Nov 1994 08:49:38 GMT"
        lines = [b"HTTP/1.1 503 Service Unavailable", b"Retry-After: " + after, b"Content-Type: text/plain"]
    elif kind == "redirect":
        body = b""
        lines = [b"HTTP/1.1 302 Found", b"Location: /hostile/mutated?seed=%d&kind=cacheable" % (seed + 1_000_000)]
    elif kind == "gzip-chunked":
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        packed = compressor.compress(body * 40) + compressor.flush()
        half = len(packed) // 2
        chunked = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (half, packed[:half], len(packed) - half, packed[half:])
        return [b"HTTP/1.1 200 OK", b"Content-Encoding: gzip", b"Transfer-Encoding: chunked",
                b"Content-Type: application/json", b"Connection: close"], chunked
    elif kind == "unauthorized":
        lines = [b"HTTP/1.1 401 Unauthorized", b'WWW-Authenticate: Basic realm="mutated"',
                 b"Content-Type: application/json"]
    elif kind == "partial":
        lines = [b"HTTP/1.1 206 Partial Content", b"Content-Range: bytes 0-%d/%d" % (len(body) - 1, len(body) * 2),
                 b"Accept-Ranges: bytes", b'ETag: "p%d"' % seed]
    elif kind == "not-modified":
        body = b""
        lines = [b"HTTP/1.1 304 Not Modified", b"Date: " + date, b'ETag: "v%d"' % seed, b"Cache-Control: max-age=60"]
    elif kind == "cookie-flood":
        shapes = [b"; Max-Age=86400", b"; Path=/a", b"; Domain=127.0.0.1", b"; Domain=co.uk", b"; Secure",
                  b"; Expires=Sun, 06 Nov 2094 08:49:37 GMT", b"; Max-Age=0", b"; HttpOnly; SameSite=Lax",
                  b"; Path=/; Max-Age=99999999999", b""]
        names = [b"c", b"__Host-c", b"__Secure-c", b""]
        lines = [b"HTTP/1.1 200 OK", b"Content-Type: application/json"]
        for i in range(rng.randint(1000, 5000)):
            name = b"x" * 5000 if i % 500 == 499 else rng.choice(names)  # now and then past the size bound
            lines.append(b"Set-Cookie: %s%d=%d%s" % (name, i % 400, i, rng.choice(shapes)))
    else:
        lines = [b"HTTP/1.1 200 OK", b"Set-Cookie: session=%d; Path=/; Max-Age=60" % seed,
                 b"Set-Cookie: other=1; Domain=127.0.0.1; Expires=Sun, 06 Nov 2094 08:49:37 GMT",
                 b"Content-Type: application/json"]
    return lines + [b"Content-Length: %d" % len(body), b"Connection: close"], body


def mutated_response(seed, kind=None):
    """A response of `kind` (else one drawn from the seed) with one to three seeded mutations."""
    import random
    rng = random.Random(seed)
    kind = kind if kind in MUTATION_KINDS + ["cookie-flood"] else rng.choice(MUTATION_KINDS)
    lines, body = mutation_template(rng, kind, seed)
    truncate_at = None
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(12)
        index = rng.randrange(len(lines))
        if choice == 0:  # a space or tab before a header line (the first one included)
            index = rng.randrange(1, len(lines))
            lines[index] = rng.choice([b" ", b"\t"]) + lines[index]
        elif choice == 1:  # a hostile number in place of the first run of digits of a line
            line = lines[index]
            digits = [i for i, byte in enumerate(line) if 0x30 <= byte <= 0x39]
            if digits:
                start = end = digits[0]
                while end < len(line) and 0x30 <= line[end] <= 0x39:
                    end += 1
                lines[index] = line[:start] + rng.choice(HOSTILE_NUMBERS) + line[end:]
        elif choice == 2:  # a date whose year no calendar holds
            lines = [line.replace(b"1994", rng.choice(HOSTILE_NUMBERS)).replace(b"2094", b"99999999999")
                     for line in lines]
        elif choice == 3:  # a line twice
            lines.insert(index, lines[index])
        elif choice == 4 and len(lines) > 1:  # a line gone (the status line included)
            del lines[index]
        elif choice == 5:  # a byte flipped
            line = bytearray(lines[index] or b"x")
            line[rng.randrange(len(line))] ^= 1 << rng.randrange(8)
            lines[index] = bytes(line)
        elif choice == 6:  # a control byte inside a line
            line = lines[index]
            at = rng.randrange(len(line) + 1)
            lines[index] = line[:at] + rng.choice([b"\r", b"\n", b"\x00", b"\x7f", b"\xff"]) + line[at:]
        elif choice == 7:  # another status
            lines[0] = b"HTTP/1.1 %d Mutated" % rng.choice([100, 101, 103, 199, 204, 299, 300, 304, 399, 401, 407,
                                                            416, 503, 599, 600, 999, 0])
        elif choice == 8:  # another version
            lines[0] = rng.choice([b"HTTP/1.0", b"HTTP/2", b"HTTP/0.9", b"HTTP/1.1.1", b"HTTP/9.9", b"http/1.1",
                                   b"HTTP/1.1 "]) + lines[0][8:]
        elif choice == 9:  # an odd header
            lines.insert(rng.randrange(1, len(lines) + 1), rng.choice([
                b"Transfer-Encoding: chunked", b"Content-Encoding: gzip", b"Content-Encoding: br",
                b"Content-Length: 0", b"Content-Length: 99999999999999999999", b"Location: \x00",
                b"Retry-After: Sun, 06 Nov 99999999999 08:49:37 GMT", b"Retry-After: 99999999999999999999",
                b"Cache-Control: max-age=99999999999999999999", b"Vary: *", b"Set-Cookie: =; Domain=.",
                b"WWW-Authenticate: Digest", b"Content-Range: bytes 5-1/2", b"Age: -5", b"X-Empty:", b":",
                b"Expires: Fri, 31 Dec 9999 23:59:59 GMT", b"Date: Mon, 01 Jan 1601 00:00:00 GMT"]))
        elif choice == 10:  # the body cut short or longer than promised
            body = body[:rng.randrange(len(body) + 1)] if rng.random() < 0.5 else body + b"trailing bytes"
        else:  # the whole response cut off somewhere
            truncate_at = rng.random()
    raw = b"\r\n".join(lines) + b"\r\n\r\n" + body
    if truncate_at is not None:
        raw = raw[:int(len(raw) * truncate_at)]
    return raw


class BadRequest(Exception):
    pass


def response_head(status, reason, headers):
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send_json(writer, status, reason, payload):
    body = (json.dumps(payload) + "\n").encode()
    writer.write(response_head(status, reason, [("Content-Type", "application/json"),
                                                 ("Content-Length", str(len(body)))]) + body)
    await writer.drain()


async def read_body(reader, headers, sink, rate=None):
    """Feeds the request body to sink(bytes), Content-Length or chunked, at most `rate` bytes a second
    when given. Returns the byte count."""
    total = 0

    async def pace(count):
        if rate:
            await asyncio.sleep(count / rate)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readline()
            if not size_line:
                raise BadRequest("connection closed inside a chunked body")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return total
            remaining = size
            while remaining:
                data = await reader.read(min(remaining, READ_CHUNK))
                if not data:
                    raise BadRequest("connection closed inside a chunk")
                sink(data)
                remaining -= len(data)
                total += len(data)
                await pace(len(data))
            await reader.readexactly(2)  # CRLF after the chunk
    remaining = int(headers.get("content-length", "0"))
    while remaining:
        data = await reader.read(min(remaining, READ_CHUNK))
        if not data:
            raise BadRequest(f"connection closed with {remaining} body bytes missing")
        sink(data)
        remaining -= len(data)
        total += len(data)
        await pace(len(data))
    return total


async def handle(reader, writer):
    try:
        request_line = await reader.readline()
        if not request_line:
            return
        method, target, _ = request_line.decode("latin-1").split(" ", 2)
        headers = {}
        lines = []
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
            lines.append([name.strip(), value.strip()])
        if target.startswith("http://"):
            # Asked as an HTTP proxy (absolute form): answer for any host name by serving the path, so a
            # test can reach these endpoints under names such as a.example.co.uk without DNS.
            target = "/" + target[len("http://"):].partition("/")[2]
        path, _, query_string = target.partition("?")
        query = urllib.parse.parse_qs(query_string)

        if path.startswith("/hostile/"):
            if not await hostile(path, query, method, headers, reader, writer, lines):
                await send_json(writer, 404, "Not Found", {"error": f"no route {path}"})
        elif path == "/health":
            writer.write(response_head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", "3")]) + b"ok\n")
        elif path == "/stall":
            writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                                   ("Content-Length", "100")]))
            await writer.drain()
            await reader.read()  # returns only when the client goes away
        elif path == "/stall-before-headers":
            await reader.read()
        elif path == "/drop":
            writer.write(response_head(200, "OK", [("Content-Type", "application/octet-stream"),
                                                   ("Content-Length", str(DROP_PROMISED))]))
            writer.write(bytes(i % 251 for i in range(DROP_SENT)))
            await writer.drain()
        elif path in ("/upload-sink", "/upload"):
            if method not in ("POST", "PUT"):
                await send_json(writer, 405, "Method Not Allowed", {"error": "use POST or PUT"})
            else:
                if headers.get("expect", "").lower() == "100-continue":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                digest = hashlib.sha256()
                count = await read_body(reader, headers, digest.update)
                await send_json(writer, 200, "OK", {"method": method, "bytes": count,
                                                     "sha256": digest.hexdigest(),
                                                     "contentType": headers.get("content-type")})
        else:
            await send_json(writer, 404, "Not Found", {"error": f"no route {path}"})
        await writer.drain()
    except (BadRequest, ValueError) as error:
        print(f"fault_server: bad request: {error}", file=sys.stderr, flush=True)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file")
    args = parser.parse_args()
    global _gzip_bomb
    # Made off the event loop as the server starts, so no request waits behind it.
    _gzip_bomb = asyncio.get_running_loop().run_in_executor(None, make_gzip_bomb)
    server = await asyncio.start_server(handle, "127.0.0.1", args.port, limit=1 << 20)
    if args.pid_file:
        with open(args.pid_file, "w") as pid_file:
            pid_file.write(f"{os.getpid()}\n")
    print(f"fault_server: listening on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
