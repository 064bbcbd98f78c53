"""The calculation itself, run inside the jail (``launcher.py``) as ``python -I -S -c <this file>``.

Reads ``{"code", "inputs", "result_fd"}`` as JSON on stdin, runs the code with the inputs as its only
names, and writes what happened as JSON to ``result_fd``. Stdlib only: the project is not in the jail.
The jail is what isolates the code; the audit hook below only gives a refused write a clear message
before the read-only filesystem refuses it anyway.
"""

import errno
import json
import math
import os
import socket
import sys
import traceback

WORKDIR = os.getcwd()
MAIN_PID = os.getpid()  # processes the code forks end here without reporting: one report per run
request = {}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
NETWORK_ERRNOS = {errno.ENETUNREACH, errno.ENETDOWN, errno.EADDRNOTAVAIL, errno.EHOSTUNREACH}


def inside_workdir(path):
    real = os.path.realpath(os.path.join(WORKDIR, os.fsdecode(path)))
    return real == WORKDIR or real.startswith(WORKDIR + os.sep)


def refuse_writes_outside(event, args):
    if event != "open" or isinstance(args[0], int):
        return
    path, mode, flags = args
    writing = any(letter in mode for letter in "wax+") if isinstance(mode, str) else bool(flags & WRITE_FLAGS)
    if writing and not inside_workdir(path):
        raise PermissionError(errno.EACCES, "write outside the working directory refused", os.fsdecode(path))


def report(**outcome):
    if os.getpid() != MAIN_PID:
        os._exit(0)
    with os.fdopen(request["result_fd"], "w") as channel:
        channel.write(json.dumps(outcome))


def kind_of(error):
    if isinstance(error, MemoryError):
        return "memory"
    if isinstance(error, socket.gaierror) or (isinstance(error, OSError) and error.errno in NETWORK_ERRNOS):
        return "network"
    if isinstance(error, OSError) and error.errno == errno.EAGAIN:
        return "processes"
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return "output"
    if isinstance(error, OSError) and error.errno == errno.ENOSPC:
        return "scratch"
    if isinstance(error, OSError) and (
        error.errno == errno.EROFS or "write outside the working directory" in str(error)
    ):
        return "write"
    return "error"


def main():
    names = {"__builtins__": __builtins__, **request["inputs"]}
    sys.addaudithook(refuse_writes_outside)
    try:
        exec(compile(request["code"], "<calculation>", "exec"), names)
        sys.stdout.flush()
    except BaseException as error:  # the code's own failure, reported, never raised past here
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        frames = [
            frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == "<calculation>"
        ]
        where = f" (line {frames[-1].lineno})" if frames else ""
        report(ok=False, kind=kind_of(error), error=(detail + where)[:2000])
        return
    if os.getpid() != MAIN_PID:
        os._exit(0)
    value = names.get("result")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        report(
            ok=False,
            kind="no_result",
            error=f"the code must assign a number to `result`, not {type(value).__name__}",
        )
    elif not math.isfinite(value):
        report(ok=False, kind="no_result", error=f"`result` is not a finite number ({value})")
    else:
        report(ok=True, value=float(value))


if __name__ == "__main__":
    request = json.loads(sys.stdin.read())
    sys.stdin.close()
    main()
