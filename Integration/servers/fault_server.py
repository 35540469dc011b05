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

Usage: fault_server.py --port PORT [--pid-file PATH]
"""
import argparse
import asyncio
import hashlib
import json
import os
import sys

DROP_PROMISED = 100_000
DROP_SENT = 40_000
READ_CHUNK = 256 * 1024


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


async def read_body(reader, headers, sink):
    """Feeds the request body to sink(bytes), Content-Length or chunked. Returns the byte count."""
    total = 0
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
            await reader.readexactly(2)  # CRLF after the chunk
    remaining = int(headers.get("content-length", "0"))
    while remaining:
        data = await reader.read(min(remaining, READ_CHUNK))
        if not data:
            raise BadRequest(f"connection closed with {remaining} body bytes missing")
        sink(data)
        remaining -= len(data)
        total += len(data)
    return total


async def handle(reader, writer):
    try:
        request_line = await reader.readline()
        if not request_line:
            return
        method, target, _ = request_line.decode("latin-1").split(" ", 2)
        headers = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        path = target.split("?", 1)[0]

        if path == "/health":
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
    server = await asyncio.start_server(handle, "127.0.0.1", args.port, limit=1 << 20)
    if args.pid_file:
        with open(args.pid_file, "w") as pid_file:
            pid_file.write(f"{os.getpid()}\n")
    print(f"fault_server: listening on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
