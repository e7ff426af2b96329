"""The MCP server's message check (mcp/messages.py) and stdio ends (mcp/stdio.py): every line is
passed to the SDK or answered with a JSON-RPC error carrying the standard code and the request's id;
no line is read past its cap; replies go out on a stdout pipe (stray output to stderr), and a stdout
that is no pipe is left to the SDK."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.shared.message import SessionMessage

from websearch_tui.mcp.messages import check_message
from websearch_tui.mcp.stdio import RequestLines, claimed_stdout

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


def errors_of(raw: bytes, max_line: int = 1024) -> list[tuple[Any, int, str]]:
    passed, errors = check_message(raw, max_line)
    assert passed is None
    return [(error.id, error.error.code, error.error.message) for error in errors]


def test_a_valid_message_passes_unchanged() -> None:
    assert check_message(line(PING)) == (json.dumps(PING), [])


@pytest.mark.parametrize(
    ("raw", "request_id", "code", "words"),
    [
        (b"{not json\n", None, types.PARSE_ERROR, "not JSON"),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "n": 1' + b"9" * 5000 + b"}\n", None, -32700, "not JSON"),
        (line({"jsonrpc": "1.0", "id": 9, "method": "ping"}), 9, types.INVALID_REQUEST, '"jsonrpc": "2.0"'),
        (line({"id": "a", "method": "ping"}), "a", types.INVALID_REQUEST, '"jsonrpc": "2.0"'),
        (line({"jsonrpc": "2.0", "id": 3}), 3, types.INVALID_REQUEST, "needs a method"),
        (line({"jsonrpc": "2.0", "id": 4, "method": 5}), 4, types.INVALID_REQUEST, "not a valid JSON-RPC 2.0"),
        (line("text"), None, types.INVALID_REQUEST, "JSON object"),
        (line(12), None, types.INVALID_REQUEST, "JSON object"),
        (line({"jsonrpc": "2.0", "id": True, "method": "ping"}), None, types.INVALID_REQUEST, "id must be"),
        (line({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), None, types.INVALID_REQUEST, "id must be"),
        (line({"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}), None, types.INVALID_REQUEST, "id must be"),
    ],
)
def test_a_line_the_sdk_cannot_read_is_answered(raw: bytes, request_id: Any, code: int, words: str) -> None:
    [(got_id, got_code, message)] = errors_of(raw, max_line=1 << 20)
    assert (got_id, got_code) == (request_id, code) and words in message


def test_a_batch_gets_an_error_per_request_in_it() -> None:
    batch = [PING, {**PING, "id": "b"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert [(i, c) for i, c, _ in errors_of(line(batch))] == [(7, -32600), ("b", -32600)]
    assert [(i, c) for i, c, _ in errors_of(line([]))] == [(None, -32600)]


def test_a_lone_surrogate_is_replaced_and_the_request_served() -> None:
    raw = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"a\\ud800b"}}}'
    passed, errors = check_message(raw + b"\n")
    assert errors == [] and passed is not None
    assert json.loads(passed)["params"]["arguments"]["query"] == "a\ufffdb"


def test_a_line_over_the_cap_is_an_invalid_request() -> None:
    assert errors_of(b"x" * 1025, max_line=1024) == [
        (None, types.INVALID_REQUEST, "Invalid Request: a message may be at most 1024 bytes long")
    ]
    assert check_message(b"\n") == (None, [])


def test_random_lines_are_always_passed_or_answered() -> None:
    """Fuzz-style: cuts, byte flips and insertions of a valid request never raise and never go unanswered."""
    rng = random.Random(27)
    valid = line({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "web_search"}})
    for _ in range(500):
        raw = bytearray(valid)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(raw))
            action = rng.choice(("flip", "cut", "insert"))
            if action == "flip":
                raw[at] = rng.randrange(256)
            elif action == "cut":
                del raw[at:]
                break
            else:
                raw[at:at] = rng.choice((b"[", b"]", b"\\ud800", b'"', b"\xff", b",", b"{}"))
        passed, errors = check_message(bytes(raw), 1 << 20)
        if passed is None:
            assert errors or not bytes(raw).strip(), bytes(raw)
        else:
            types.jsonrpc_message_adapter.validate_json(passed, by_name=False)


async def test_request_lines_cap_what_is_read_and_answer_the_rest() -> None:
    source = io.BytesIO(b"y" * 5000 + b"\n" + line(PING) + b"{oops\n" + line(PING))
    send, receive = anyio.create_memory_object_stream[SessionMessage](10)
    passed = [text async for text in RequestLines(source, send, max_line=1024)]
    replies = [message.message async for message in receive]
    assert passed == [json.dumps(PING)] * 2
    assert [(reply.id, reply.error.code) for reply in replies] == [(None, -32600), (None, -32700)]  # type: ignore[union-attr]


@contextmanager
def stdout_on(fd: int) -> Iterator[None]:
    """File descriptor 1 pointing at ``fd`` for the block (pytest's capture puts a file there)."""
    saved = os.dup(1)
    os.dup2(fd, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


async def test_replies_go_out_on_the_pipe_and_stray_output_to_stderr(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    errors = os.open(tmp_path / "stderr", os.O_WRONLY | os.O_CREAT)
    saved_err = os.dup(2)
    os.dup2(errors, 2)
    try:
        with stdout_on(write_end):
            async with claimed_stdout() as out:
                assert out is not None
                for n in range(3):
                    await out.write(json.dumps({**PING, "id": n}) + "\n")
                    await out.flush()
                os.write(1, b"a stray print\n")  # a library or a child writing to fd 1
            assert os.get_blocking(1)  # given back as it was
            os.write(1, b"after\n")  # fd 1 is the pipe again
    finally:
        os.dup2(saved_err, 2)
        os.close(saved_err)
        os.close(errors)
        os.close(write_end)
    with os.fdopen(read_end, "rb") as wire:
        lines = wire.read().decode().splitlines()
    assert [json.loads(text)["id"] for text in lines[:3]] == [0, 1, 2] and lines[3:] == ["after"]
    assert (tmp_path / "stderr").read_text() == "a stray print\n"


async def test_stdout_that_is_a_file_is_left_to_the_sdk(tmp_path: Path) -> None:
    target = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        with stdout_on(target):
            async with claimed_stdout() as out:
                assert out is None
                os.write(1, b"untouched\n")
    finally:
        os.close(target)
    assert (tmp_path / "out").read_text() == "untouched\n"


async def test_flush_fails_once_the_client_closed_its_end() -> None:
    read_end, write_end = os.pipe()
    try:
        with stdout_on(write_end):
            async with claimed_stdout() as out:
                assert out is not None
                os.close(read_end)
                with pytest.raises(ConnectionError):
                    for _ in range(1000):  # until the transport sees the pipe closed
                        await out.write("x" * 65536 + "\n")
                        await out.flush()
    finally:
        os.close(write_end)


async def test_a_cancel_while_closing_gives_stdout_back_as_it_was() -> None:
    read_end, write_end = os.pipe()  # a client that never reads its replies
    try:
        with stdout_on(write_end):
            before = os.fstat(1).st_ino

            async def serve() -> None:
                async with claimed_stdout() as out:
                    assert out is not None
                    await out.write("x" * 200_000)  # more than the pipe holds: closing waits for it

            task = asyncio.ensure_future(serve())
            await asyncio.sleep(0.3)  # inside the close, waiting for the client
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert os.fstat(1).st_ino == before and os.get_blocking(1)  # the wire again, blocking
    finally:
        os.close(read_end)
        os.close(write_end)
