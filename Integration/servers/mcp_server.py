#!/usr/bin/env python3
"""MCP server for the integration tests and benchmarks: the official Python SDK (`mcp` on PyPI) serving
the same tools over Streamable HTTP at three endpoints, with control routes the tests drive it by.

    POST|GET|DELETE /stateful/mcp  stateful: answers POSTs as event streams, keeps every event in an
                                   in-memory event store (resumability: Last-Event-ID), retry 100 ms
    POST            /json/mcp      stateless, JSON answers (no server requests); a GET is answered 405
                                   (no GET stream, as a server may choose)
    POST|GET|DELETE /bearer/mcp    as /stateful/mcp, but only for `Authorization: Bearer fresh-token`
                                   (anything else: 401 with `WWW-Authenticate: Bearer`)
    POST /hostile/garbage-first    answers every request with an event stream whose first event is not
                                   JSON, then a valid answer (initialize's: server "hostile"); 202 for the
                                   rest, 405 for a GET
    POST /hostile/no-answer        answers every request with an event stream of one notification and no
                                   event id, then closes it without the answer
    GET  /health                   200 "ok"
    POST /control/release?gate=G   lets the tool waiting on gate G go on
    POST /control/expire?session=S forgets session S of /stateful/mcp (later requests: 404); answers the
                                   number of sessions forgotten
    GET  /control/log              every MCP request as JSON lines: path, method, session, protocol
                                   version, Last-Event-ID, Authorization, JSON-RPC method, status
    GET  /control/await?path=P&method=M&count=N   the log once N requests of method M to P were
                                   answered (or opened, for a GET stream), waiting at most 10 s
    GET  /control/events           the events the event store kept: stream, id and message as JSON lines

Tools: add(a, b); echo(text); blob(size) (a text of `size` "x"); progress(steps, gate) (reports
progress 1..steps, then, with a gate, waits for /control/release, at most 30 s); ask_name()
(elicits a name from the client); announce(text) (a log message on the GET stream);
cut_and_announce(text) (closes the GET stream, then a log message while the client is away);
interrupted(text) (closes its own call's event stream, then answers with the text).

Usage: mcp_server.py --port PORT [--pid-file PATH]
"""
import argparse
import asyncio
import contextlib
import json
import os
from uuid import uuid4

import uvicorn
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventMessage, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager

BEARER_TOKEN = "fresh-token"
GATES = {}
LOG = []
LOG_CHANGED = asyncio.Condition()
EVENTS = []


class RecordingEventStore(EventStore):
    """Keeps every event in memory, in order, and replays a stream after an event id."""

    async def store_event(self, stream_id, message):
        event_id = uuid4().hex
        EVENTS.append((stream_id, event_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        stream = next((s for s, e, _ in EVENTS if e == last_event_id), None)
        if stream is None:
            return None
        found = False
        for s, e, message in list(EVENTS):
            if found and s == stream and message is not None:
                await send_callback(EventMessage(message, e))
            if e == last_event_id:
                found = True
        return stream


def gate(name):
    if name not in GATES:
        GATES[name] = asyncio.Event()
    return GATES[name]


server = MCPServer(name="af-test-mcp", version="1.0.0")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Returns the text."""
    return text


@server.tool()
def blob(size: int) -> str:
    """A text of `size` x characters."""
    return "x" * size


@server.tool()
async def progress(steps: int, ctx: Context, gate_name: str = "") -> str:
    """Reports progress 1..steps, then waits for the gate when one is named."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    if gate_name:
        try:
            await asyncio.wait_for(gate(gate_name).wait(), 30)
        except asyncio.TimeoutError:
            return "gate timed out"
    return f"done after {steps} steps"


class Name(BaseModel):
    name: str


@server.tool()
async def ask_name(ctx: Context) -> str:
    """Asks the client for a name."""
    result = await ctx.elicit(message="What is your name?", schema=Name)
    if result.action == "accept" and result.data is not None:
        return f"hello {result.data.name}"
    return f"no name ({result.action})"


@server.tool()
async def interrupted(text: str, ctx: Context) -> str:
    """Closes this call's own event stream, then answers (the answer waits in the event store)."""
    await ctx.close_sse_stream()
    return text


@server.tool()
async def announce(text: str, ctx: Context) -> str:
    """A log message on the GET stream."""
    await ctx.session.send_log_message("info", text)
    return "announced"


@server.tool()
async def cut_and_announce(text: str, ctx: Context) -> str:
    """Closes the GET stream, then sends a log message while the client is away (kept in the event store)."""
    await ctx.close_standalone_sse_stream()
    await ctx.session.send_log_message("info", text)
    return "cut"


lowlevel = server._lowlevel_server
managers = {
    "/stateful/mcp": StreamableHTTPSessionManager(app=lowlevel, event_store=RecordingEventStore(), retry_interval=100),
    "/json/mcp": StreamableHTTPSessionManager(app=lowlevel, json_response=True, stateless=True),
    "/bearer/mcp": StreamableHTTPSessionManager(app=lowlevel),
}
apps = {path: StreamableHTTPASGIApp(manager) for path, manager in managers.items()}


async def record(entry):
    async with LOG_CHANGED:
        LOG.append(entry)
        LOG_CHANGED.notify_all()


async def respond(send, status, body, content_type="text/plain", headers=()):
    data = body.encode() if isinstance(body, str) else body
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(data)).encode())]
                + list(headers)})
    await send({"type": "http.response.body", "body": data})


async def serve_mcp(path, scope, receive, send):
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    entry = {"path": path, "method": scope["method"], "session": headers.get("mcp-session-id"),
             "protocolVersion": headers.get("mcp-protocol-version"), "lastEventID": headers.get("last-event-id"),
             "authorization": headers.get("authorization"), "rpc": None, "status": None}
    body = b""
    if scope["method"] == "POST":
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        with contextlib.suppress(Exception):
            entry["rpc"] = json.loads(body).get("method") or "response"
    replayed = [False]

    async def replay():
        if not replayed[0]:
            replayed[0] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    async def watch(message):
        # Logged before the head goes out: a client that has the answer finds its request in the log.
        if message["type"] == "http.response.start":
            entry["status"] = message["status"]
            await record(dict(entry))
        await send(message)

    if path == "/json/mcp" and scope["method"] == "GET":
        entry["status"] = 405
        await record(entry)
        await respond(send, 405, "no GET stream", headers=[(b"allow", b"POST")])
        return
    if path == "/bearer/mcp" and headers.get("authorization") != f"Bearer {BEARER_TOKEN}":
        entry["status"] = 401
        await record(entry)
        await respond(send, 401, "unauthorized", headers=[(b"www-authenticate", b"Bearer")])
        return
    await apps[path](scope, replay if scope["method"] == "POST" else receive, watch)


async def hostile(path, scope, receive, send):
    if scope["method"] != "POST":
        await respond(send, 405, "no GET stream", headers=[(b"allow", b"POST")])
        return
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    request = json.loads(body)
    if "id" not in request or "method" not in request:
        await respond(send, 202, "")
        return
    if path == "/hostile/no-answer":
        notification = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
        events = "data: " + json.dumps(notification) + "\n\n"
    else:
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "hostile", "version": "1"}}
        answer = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        events = "data: not json {\n\ndata: " + json.dumps(answer) + "\n\n"
    await respond(send, 200, events, "text/event-stream")


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        async with contextlib.AsyncExitStack() as stack:
            message = await receive()
            for manager in managers.values():
                await stack.enter_async_context(manager.run())
            await send({"type": "lifespan.startup.complete"})
            message = await receive()
            if message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
        return
    path = scope["path"]
    query = dict(p.split("=", 1) for p in scope.get("query_string", b"").decode().split("&") if "=" in p)
    if path in apps:
        await serve_mcp(path, scope, receive, send)
    elif path.startswith("/hostile/"):
        await hostile(path, scope, receive, send)
    elif path == "/health":
        await respond(send, 200, "ok")
    elif path == "/control/release":
        gate(query.get("gate", "")).set()
        await respond(send, 200, "released")
    elif path == "/control/expire":
        manager = managers["/stateful/mcp"]
        sessions = [(i, t) for i, t in manager._server_instances.items() if i == query.get("session")]
        for session_id, transport in sessions:
            await manager._discard_session(session_id, transport)
        await respond(send, 200, str(len(sessions)))
    elif path == "/control/log":
        await respond(send, 200, "".join(json.dumps(e) + "\n" for e in LOG), "application/x-ndjson")
    elif path == "/control/await":
        def matching():
            return [e for e in LOG if e["path"] == query.get("path") and e["method"] == query.get("method")]
        async with LOG_CHANGED:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(LOG_CHANGED.wait_for(lambda: len(matching()) >= int(query.get("count", "1"))), 10)
        await respond(send, 200, "".join(json.dumps(e) + "\n" for e in matching()), "application/x-ndjson")
    elif path == "/control/events":
        lines = [json.dumps({"stream": s, "id": e, "message": m.model_dump(mode="json", by_alias=True, exclude_none=True)
                             if m is not None else None}) for s, e, m in EVENTS]
        await respond(send, 200, "".join(line + "\n" for line in lines), "application/x-ndjson")
    else:
        await respond(send, 404, "not found")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid-file")
    arguments = parser.parse_args()
    if arguments.pid_file:
        with open(arguments.pid_file, "w") as handle:
            handle.write(str(os.getpid()))
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
