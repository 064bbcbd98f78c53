"""Sandboxed numeric calculations: model-written Python run where it can do nothing else.

What isolates the code (built by ``launcher.py``, each limit proved in ``tests/test_sandbox.py``):
- a separate process, ``python -I -S`` with an empty environment, started fresh (not forked from
  the worker);
- its own network namespace, with no interface up: no address can be reached, loopback included;
- its own mount namespace, chrooted into a read-only tmpfs that holds only the system libraries and
  the interpreter (``nosuid,nodev``: a setuid program runs as its caller) and a size-limited tmpfs
  (``/sandbox``, ``nosuid,nodev,noexec``), the one writable place;
- its own user namespace, in which the worker's user is "nobody" (as root: a user id of its own):
  no capabilities after the exec, and no-new-privileges, so none of the above can be undone from
  inside;
- its own PID namespace, and one process: the code can start no process or thread, so the limits of
  that process are the limits of the whole jail;
- resource limits: CPU seconds, address space, file size (which also caps its output), open files,
  scratch space; and a wall clock enforced from outside.
Where namespaces cannot be created (a container without user namespaces), nothing runs: the
outcome says the sandbox is unavailable. There is no weaker fallback.

Inputs enter only as a JSON object of name → number; the code must assign ``result``.
"""

from __future__ import annotations

import json
import keyword
import math
import os
import secrets
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Limits", "Outcome", "run_calculation"]

HERE = Path(__file__).resolve().parent
SETUP_FAILED = 120  # launcher.SETUP_FAILED
MAX_CODE_CHARS = 20_000
MAX_INPUTS = 100
MIB = 1024 * 1024
JAIL_IDS = (1_000_000, 2_000_000_000)  # far above any account a system creates


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 2
    memory_bytes: int = 256 * MIB
    output_bytes: int = 64 * 1024
    wall_seconds: float = 5.0
    scratch_bytes: int = 16 * MIB  # the writable /sandbox, all files together
    scratch_files: int = 256


@dataclass(frozen=True)
class Outcome:
    ok: bool
    value: float | None
    stdout: str
    error: str


def run_calculation(
    code: str, inputs: dict[str, float], *, limits: Limits = Limits(), user_namespace: bool = False
) -> Outcome:
    """Run ``code`` in the sandbox with ``inputs`` as its only names; its ``result`` is the value.

    1. Check the inputs (identifiers → finite numbers) and the code's size: bad input runs nothing.
    2. Make a fresh temporary directory: the working directory, the jail's root mount point, and
       the files that take the code's output and its result.
    3. Start the launcher in a new session; at the wall clock, have it end the jail (``stop``).
    4. Read what the runner reported, or explain how the process ended.

    ``user_namespace``: isolate through a user namespace even when running as root (the way a
    worker that is not root always runs; the tests use it to prove that path too).
    """
    problem = check_request(code, inputs)
    if problem:
        return Outcome(ok=False, value=None, stdout="", error=problem)
    with tempfile.TemporaryDirectory(prefix="calculation-") as temp:
        base = Path(temp)
        (base / "root").mkdir(mode=0o700)  # the jail's root mount point
        with (
            open(base / "stdout", "w+b") as stdout,
            open(base / "stderr", "w+b") as stderr,
            open(base / "result", "w+b") as result,
        ):
            config = launch_config(base, limits) | {"user_namespace": user_namespace}
            request = json.dumps({"code": code, "inputs": inputs, "result_fd": result.fileno()})
            returncode = run_launcher(config, request, stdout, stderr, result.fileno(), limits)
            return outcome_of(
                returncode=returncode,
                stdout=read_capped(stdout, limits.output_bytes),
                stderr=read_capped(stderr, 4000),
                reported=read_capped(result, limits.output_bytes),
                limits=limits,
            )


def check_request(code: str, inputs: dict[str, float]) -> str:
    if not isinstance(code, str) or not code.strip():
        return "no code to run"
    if len(code) > MAX_CODE_CHARS:
        return f"the code is too long ({len(code)} characters, at most {MAX_CODE_CHARS})"
    if not isinstance(inputs, dict) or len(inputs) > MAX_INPUTS:
        return f"inputs must be a mapping of at most {MAX_INPUTS} names to numbers"
    for name, value in inputs.items():
        if (
            not isinstance(name, str)
            or not name.isidentifier()
            or keyword.iskeyword(name)
            or name == "result"
            or name.startswith("__")
        ):
            return f"input name {name!r} is not a usable Python name"
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return f"input {name!r} is not a finite number: {value!r}"
    return ""


def interpreter() -> str:
    """The real interpreter behind the venv: the jail holds its prefix, not the venv."""
    return os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)


def launch_config(base: Path, limits: Limits) -> dict:
    return {
        "root": str(base / "root"),
        "prefix": os.path.realpath(sys.base_prefix),
        "python": interpreter(),
        # As root, the jail runs as a user id of its own (see launcher.drop_privileges).
        "jail_id": secrets.SystemRandom().randrange(JAIL_IDS[0], JAIL_IDS[1]),
        "runner": (HERE / "runner.py").read_text(),
        "limits": {
            "cpu_seconds": int(limits.cpu_seconds),
            "memory_bytes": int(limits.memory_bytes),
            "output_bytes": int(limits.output_bytes),
            "scratch_bytes": int(limits.scratch_bytes),
            "scratch_files": int(limits.scratch_files),
        },
    }


def run_launcher(config: dict, request: str, stdout, stderr, result_fd: int, limits: Limits) -> int | None:
    """The launcher's exit status, or None when the wall clock ran out and the session was killed."""
    process = subprocess.Popen(
        [interpreter(), "-I", "-S", str(HERE / "launcher.py"), json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=stdout,
        stderr=stderr,
        pass_fds=(result_fd,),
        env={},
        cwd=str(Path(config["root"]).parent),
        start_new_session=True,
    )
    try:
        process.communicate(request.encode(), timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        stop(process)
        return None
    except BaseException:
        stop(process)
        raise
    return process.returncode


def stop(process: subprocess.Popen) -> None:
    """Ask the launcher to kill the jail's PID 1 (the rest of the jail dies with it) and reap it;
    should the launcher not end within a second, kill its whole session."""
    process.terminate()
    try:
        process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def read_capped(handle, limit: int) -> bytes:
    handle.seek(0)
    return handle.read(limit + 1)


def outcome_of(
    *, returncode: int | None, stdout: bytes, stderr: bytes, reported: bytes, limits: Limits
) -> Outcome:
    printed = stdout[: limits.output_bytes].decode("utf-8", "replace")

    def failed(error: str) -> Outcome:
        return Outcome(ok=False, value=None, stdout=printed, error=error)

    if returncode is None:
        return failed(f"wall clock limit ({limits.wall_seconds:g} s) reached")
    if returncode == SETUP_FAILED:
        return failed(stderr.decode("utf-8", "replace").strip() or "sandbox unavailable")
    if len(stdout) > limits.output_bytes:
        return failed(f"output limit ({limits.output_bytes // 1024} KiB) reached")
    try:
        result = json.loads(reported) if reported else None
    except ValueError:
        result = None
    if returncode == 128 + signal.SIGKILL and not isinstance(result, dict):
        # The only SIGKILL sent inside the jail is the kernel's, at the CPU limit's hard edge.
        return failed(f"CPU limit ({limits.cpu_seconds} s) reached")
    if not isinstance(result, dict):
        tail = stderr.decode("utf-8", "replace").strip()[-500:]
        return failed(
            f"the calculation ended without a result (exit status {returncode}){': ' + tail if tail else ''}"
        )
    if result.get("ok") is True and isinstance(result.get("value"), int | float):
        return Outcome(ok=True, value=float(result["value"]), stdout=printed, error="")
    return failed(explain(str(result.get("kind", "")), str(result.get("error", "")), limits))


def explain(kind: str, detail: str, limits: Limits) -> str:
    """The runner's report → one clear message, the code's own error kept after it."""
    headline = {
        "memory": f"memory limit ({limits.memory_bytes // (1024 * 1024)} MiB) reached",
        "network": "network is not available",
        "write": "write outside the working directory refused",
        "output": f"output limit ({limits.output_bytes // 1024} KiB) reached",
        "processes": "process limit reached: a calculation cannot start a process or a thread",
        "scratch": f"scratch space limit ({limits.scratch_bytes // MIB} MiB) reached",
    }.get(kind)
    if headline is None:
        return detail or "the calculation failed"
    return f"{headline}: {detail}" if detail else headline
