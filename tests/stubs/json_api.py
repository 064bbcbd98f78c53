"""A real HTTP server on 127.0.0.1 for stubbing JSON APIs of the outside world.

The vendor stubs (``tavily_api``, ``openai_api``) subclass ``JsonApiStub`` and implement
``respond``. The real client libraries talk to them over a socket, so their request encoding,
header handling, error mapping and timeouts are all exercised.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, override


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # lower-cased names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass(frozen=True)
class StubResponse:
    status: int = 200
    body: Any = None  # JSON-encoded unless it is ``bytes``
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering: long enough and the client times out


@dataclass(frozen=True)
class Failure:
    """What the stub does instead of answering normally, for one request.

    ``status`` other than 200 answers with that HTTP error; ``content`` (OpenAI stub only) answers
    200 but with that message content; ``delay`` answers normally, only late.
    """

    status: int = 200
    message: str = ""
    code: str = ""  # the vendor's error code, e.g. OpenAI's "insufficient_quota"
    content: str | None = None
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def http(
        cls, status: int, message: str = "", *, code: str = "", headers: Mapping[str, str] | None = None
    ) -> Failure:
        return cls(
            status=status, message=message or f"stubbed HTTP {status}", code=code, headers=dict(headers or {})
        )

    @classmethod
    def slow(cls, seconds: float) -> Failure:
        return cls(delay=seconds)

    @classmethod
    def malformed_json(cls) -> Failure:
        """A 200 whose message content is cut off mid-JSON, as a truncated model answer is."""
        return cls(content='{"findings": [{"statement": "The answer was cut')

    @classmethod
    def off_schema(cls) -> Failure:
        """A 200 whose content is valid JSON that matches none of our schemas."""
        return cls(content='{"answer": "I would rather chat than follow the schema."}')


class JsonApiStub:
    """Runs in a daemon thread; use as a context manager. Subclasses implement ``respond``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._failures: deque[Failure] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- test-facing API --------------------------------------------------------------------

    @property
    def origin(self) -> str:
        if self._server is None:
            raise RuntimeError("the stub is not running; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def fail_next(self, *failures: Failure) -> None:
        """Queue failures; each is used up by one request, in order, before normal answers resume."""
        with self._lock:
            self._failures.extend(failures)

    def start(self) -> Self:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        # A slow answer must not keep the test run alive after the client gave up on it.
        self._server.daemon_threads = True
        self._server.block_on_close = False
        # A short poll interval: ``shutdown`` waits up to one interval, and every test stops a stub.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # wakes handlers sleeping on a ``delay``
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # --- subclass hooks ---------------------------------------------------------------------

    def respond(self, request: RecordedRequest, failure: Failure | None) -> StubResponse:
        raise NotImplementedError

    # --- plumbing ---------------------------------------------------------------------------

    def _take_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)


def _handler_for(stub: JsonApiStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the real APIs do; clients pool connections

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
            )
            stub._record(request)
            try:
                response = stub.respond(request, stub._take_failure())
            except Exception as error:  # a bug in a test's responder: answer 500 and say why
                response = StubResponse(500, {"error": {"message": f"stub responder failed: {error!r}"}})
            if response.delay and stub._closing.wait(response.delay):
                return  # the stub is shutting down; the client stopped waiting long ago
            body = response.body if isinstance(response.body, bytes) else json.dumps(response.body).encode()
            try:
                self.send_response(response.status)
                # A response that names its own type (an Atom feed) sends that one instead.
                if not any(name.lower() == "content-type" for name in response.headers):
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and hung up: that is the point of a slow answer

        @override
        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean; ``stub.requests`` is the log

    return Handler
