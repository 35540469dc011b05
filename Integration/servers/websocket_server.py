#!/usr/bin/env python3
"""WebSocket server for the integration tests: the `websockets` library (PyPI), a reference implementation.

    GET /health                 200 "ok" (plain HTTP)
    WS  /echo                   every message sent back as it came (text or binary)
    WS  /subprotocol            offers chat.v2 and chat.v1; the first of them the client offers is chosen
    WS  /close?code=C&reason=R  closes at once with C (default 4000) and R (default "bye")
    WS  /cookie                 sends the Cookie field of the handshake as its first message, then echoes;
                                its 101 sets `ws-session=abc; Path=/`
    WS  /count?n=N&size=B       sends N binary messages of B bytes (byte i is i % 251), then closes 1000
    GET /not-websocket          a plain 403
    WS  /record?key=K           keeps every text message it receives (it sends nothing)
    GET /recorded?key=K         200 with K's messages, one a line (plain HTTP)

Compression (permessage-deflate) is negotiated when the client offers it. With --tls-port, --cert and
--key, the same routes are served over TLS (wss). With --hostile-port, a raw server (the handshake and
frames written by hand, RFC 6455 broken on purpose) answers:

    /masked            a masked text frame (a server must not mask: the client closes 1002)
    /bad-utf8          a text message whose bytes are not UTF-8 (1007)
    /reserved-bit      a text frame with RSV2 set (1002)
    /fragmented-ping   a ping frame without FIN (1002)
    /endless-fragments a text message in 64 KiB fragments that never ends (the client's limit: 1009)
    /huge-length       a frame head announcing 2^63 - 1 bytes (1009 before anything is buffered)
    /ping-flood?n=N    N pings, then a text "done"; the client answers every one
    /never-close       one text "hi", then reads forever and never answers a close frame
    /endless-head      a 101 whose head never ends (512 bytes at a time)

Usage: websocket_server.py --port PORT [--tls-port P --cert CHAIN --key KEY] [--hostile-port P] [--pid-file PATH]
"""
import argparse
import asyncio
import base64
import hashlib
import os
import ssl
import struct
import urllib.parse

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response


def select_subprotocol(connection, offered):
    for name in offered:
        if name in ("chat.v2", "chat.v1"):
            return name
    return None


# /record's messages by key.
RECORDED = {}


def process_request(connection, request):
    parts = urllib.parse.urlsplit(request.path)
    path = parts.path
    if path == "/recorded":
        key = urllib.parse.parse_qs(parts.query).get("key", [""])[0]
        return connection.respond(200, "".join(line + "\n" for line in RECORDED.get(key, [])))
    if path == "/health":
        return connection.respond(200, "ok\n")
    if path == "/not-websocket":
        return connection.respond(403, "no\n")
    return None


def process_response(connection, request, response):
    if urllib.parse.urlsplit(request.path).path == "/cookie" and response.status_code == 101:
        response.headers["Set-Cookie"] = "ws-session=abc; Path=/"
    return response


async def handler(connection):
    parts = urllib.parse.urlsplit(connection.request.path)
    query = urllib.parse.parse_qs(parts.query)
    path = parts.path
    if path == "/close":
        await connection.close(int(query.get("code", ["4000"])[0]), query.get("reason", ["bye"])[0])
        return
    if path == "/count":
        count = int(query.get("n", ["10"])[0])
        size = int(query.get("size", ["32"])[0])
        payload = bytes(i % 251 for i in range(size))
        for _ in range(count):
            await connection.send(payload)
        await connection.close(1000, "done")
        return
    if path == "/record":
        key = query.get("key", [""])[0]
        async for message in connection:
            RECORDED.setdefault(key, []).append(message if isinstance(message, str) else message.hex())
        return
    if path == "/cookie":
        await connection.send(connection.request.headers.get("Cookie", ""))
    async for message in connection:
        await connection.send(message)


def frame(opcode, payload, fin=True, rsv=0, mask=None):
    """A frame as a server writes it (unmasked unless `mask` is given)."""
    first = (0x80 if fin else 0) | (rsv << 4) | opcode
    length = len(payload)
    mask_bit = 0x80 if mask else 0
    if length < 126:
        head = struct.pack("!BB", first, mask_bit | length)
    elif length < 65536:
        head = struct.pack("!BBH", first, mask_bit | 126, length)
    else:
        head = struct.pack("!BBQ", first, mask_bit | 127, length)
    if mask:
        payload = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        return head + mask + payload
    return head + payload


async def hostile(reader, writer):
    """The raw server: reads the handshake, answers 101, then misbehaves as the path says."""
    try:
        request = await reader.readuntil(b"\r\n\r\n")
        lines = request.decode("latin-1").split("\r\n")
        target = lines[0].split(" ")[1]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if target.startswith("/endless-head"):
            # A response head that never ends, a few bytes at a time: the client's header bound ends it.
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nX-Endless: ")
            while True:
                writer.write(b"a" * 512)
                await writer.drain()
                await asyncio.sleep(0)
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        parts = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(parts.query)
        path = parts.path
        if path == "/masked":
            writer.write(frame(0x1, b"hello", mask=b"\x01\x02\x03\x04"))
        elif path == "/bad-utf8":
            writer.write(frame(0x1, b"ok \xce\xba\xff bad"))
        elif path == "/reserved-bit":
            writer.write(frame(0x1, b"hello", rsv=2))
        elif path == "/fragmented-ping":
            writer.write(frame(0x9, b"p", fin=False))
        elif path == "/huge-length":
            writer.write(struct.pack("!BBQ", 0x82, 127, (1 << 63) - 1))
        elif path == "/endless-fragments":
            writer.write(frame(0x1, b"a" * 65536, fin=False))
            chunk = frame(0x0, b"a" * 65536, fin=False)
            while True:
                writer.write(chunk)
                await writer.drain()
        elif path == "/ping-flood":
            count = int(query.get("n", ["1000"])[0])
            for index in range(count):
                writer.write(frame(0x9, str(index).encode()))
            writer.write(frame(0x1, b"done"))
        elif path == "/never-close":
            writer.write(frame(0x1, b"hi"))
        await writer.drain()
        # Read (and drop) what the client sends until it goes away; never answer its close.
        while await reader.read(65536):
            pass
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError):
        pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-port", type=int)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--hostile-port", type=int)
    parser.add_argument("--pid-file")
    arguments = parser.parse_args()
    if arguments.pid_file:
        with open(arguments.pid_file, "w") as handle:
            handle.write(str(os.getpid()))
    options = dict(select_subprotocol=select_subprotocol, process_request=process_request,
                   process_response=process_response, max_size=64 << 20, ping_interval=None)
    servers = [await serve(handler, "127.0.0.1", arguments.port, **options)]
    if arguments.tls_port:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
        servers.append(await serve(handler, "127.0.0.1", arguments.tls_port, ssl=context, **options))
    if arguments.hostile_port:
        servers.append(await asyncio.start_server(hostile, "127.0.0.1", arguments.hostile_port))
    await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    asyncio.run(main())
