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

Compression (permessage-deflate) is negotiated when the client offers it. Usage:
websocket_server.py --port PORT [--pid-file PATH]
"""
import argparse
import asyncio
import os
import urllib.parse

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response


def select_subprotocol(connection, offered):
    for name in offered:
        if name in ("chat.v2", "chat.v1"):
            return name
    return None


def process_request(connection, request):
    path = urllib.parse.urlsplit(request.path).path
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
    if path == "/cookie":
        await connection.send(connection.request.headers.get("Cookie", ""))
    async for message in connection:
        await connection.send(message)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file")
    arguments = parser.parse_args()
    if arguments.pid_file:
        with open(arguments.pid_file, "w") as handle:
            handle.write(str(os.getpid()))
    async with serve(handler, "127.0.0.1", arguments.port, select_subprotocol=select_subprotocol,
                     process_request=process_request, process_response=process_response,
                     max_size=64 << 20, ping_interval=None):
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    asyncio.run(main())
