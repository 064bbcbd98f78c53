"""The calculation sandbox: each limit and each wall of the jail, proved by code that tries it.

What isolates the code is described in ``researchapp/providers/sandbox/__init__.py``: network,
mount, PID (and, when not root, user) namespaces, a read-only ``nosuid,nodev`` chroot with one
size-limited writable tmpfs, a user id of its own, no-new-privileges, one process, resource limits
and a wall clock. Each wall is tried in both modes: as root (a user id of its own) and through a user
namespace (the way a worker that is not root runs).
"""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path

import pytest

from researchapp.providers.sandbox import JAIL_IDS, Limits, run_calculation

REPO = Path(__file__).resolve().parent.parent


def jailed_processes() -> list[int]:
    """Processes on this machine running as one of the sandbox's user ids."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                uid = entry.stat().st_uid
            except FileNotFoundError:
                continue
            if JAIL_IDS[0] <= uid < JAIL_IDS[1]:
                found.append(int(entry.name))
    return found


def test_it_computes_a_growth_rate_from_two_numbers():
    # given two quoted figures
    inputs = {"revenue_2023": 118.4, "revenue_2024": 151.9}
    # when
    outcome = run_calculation(
        "result = (revenue_2024 - revenue_2023) / revenue_2023 * 100\nprint(f'{result:.1f} %')", inputs
    )
    # then
    expected = (inputs["revenue_2024"] - inputs["revenue_2023"]) / inputs["revenue_2023"] * 100
    assert outcome.ok, outcome.error
    assert outcome.value == pytest.approx(expected)
    assert outcome.stdout == f"{expected:.1f} %\n"
    assert outcome.error == ""


def test_its_only_names_are_the_inputs_and_its_environment_is_empty():
    # (LC_CTYPE is the interpreter's own: PEP 538 sets it when it starts without a locale)
    code = (
        "import os\nprint(sorted(os.environ), sorted(n for n in dir() if not n.startswith('__')))\nresult = x"
    )
    outcome = run_calculation(code, {"x": 1})
    assert outcome.ok, outcome.error
    assert outcome.stdout == "['LC_CTYPE'] ['os', 'x']\n"
    assert outcome.value == 1.0


def test_it_cannot_connect_even_to_loopback():
    # given a real server listening on 127.0.0.1
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        port = server.getsockname()[1]
        code = (
            "import socket\ns = socket.socket()\ns.settimeout(2)\n"
            "s.connect(('127.0.0.1', int(port)))\nresult = 1"
        )
        # when
        outcome = run_calculation(code, {"port": port})
        # then the connect failed inside the jail, and nothing reached the server
        assert not outcome.ok
        assert outcome.error.startswith("network is not available")
        with pytest.raises(TimeoutError):
            server.accept()


@pytest.mark.parametrize("where", ["tmp", "repo"])
def test_it_refuses_a_write_outside_its_directory(where):
    # given a path outside the working directory: in /tmp, and in the repository
    target = (Path("/tmp") if where == "tmp" else REPO) / f"outside-{secrets.token_hex(6)}"
    # when
    outcome = run_calculation(f"open({str(target)!r}, 'w').write('escaped')\nresult = 1", {})
    # then
    assert not outcome.ok
    assert outcome.error.startswith("write outside the working directory refused")
    assert not target.exists()


def test_the_filesystem_refuses_the_write_even_past_pythons_own_checks():
    # given code that calls the C library directly, around the interpreter's audit hook
    target = Path("/tmp") / f"outside-{secrets.token_hex(6)}"
    code = (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"fd = libc.open({str(target).encode()!r}, os.O_WRONLY | os.O_CREAT, 0o644)\n"
        "result = ctypes.get_errno() if fd < 0 else -1"
    )
    # when
    outcome = run_calculation(code, {})
    # then the open failed (that path does not exist in the jail, whose root is read-only)
    assert outcome.ok, outcome.error
    assert outcome.value in (2.0, 30.0)  # ENOENT or EROFS
    assert not target.exists()


def test_it_writes_inside_its_own_directory_and_leaves_nothing_behind():
    code = "open('notes.txt', 'w').write('a' * 10)\nresult = len(open('notes.txt').read())"
    outcome = run_calculation(code, {})
    assert outcome.ok, outcome.error
    assert outcome.value == 10.0


def test_it_sees_neither_the_project_nor_the_machines_files():
    code = (
        f"import os\npaths = ({str(REPO)!r}, '/etc/passwd', '/proc/self', '/tmp')\n"
        "hidden = [p for p in paths if os.path.exists(p)]\n"
        "print(hidden)\nresult = len(hidden)"
    )
    outcome = run_calculation(code, {})
    assert outcome.ok, outcome.error
    assert outcome.stdout == "[]\n"


def test_it_cannot_undo_its_jail():
    # given code that tries to leave the chroot or make itself a new namespace
    for attempt in ("os.chroot('/')", "os.unshare(os.CLONE_NEWUSER)", "os.unshare(os.CLONE_NEWNET)"):
        # when
        outcome = run_calculation(f"import os\n{attempt}\nresult = 1", {})
        # then
        assert not outcome.ok, attempt
        assert "PermissionError" in outcome.error or "Operation not permitted" in outcome.error, outcome.error


def test_an_infinite_loop_stops_at_the_cpu_limit():
    # (a generous wall clock: on a loaded machine two seconds of CPU can take longer than five)
    outcome = run_calculation("while True:\n    pass", {}, limits=Limits(wall_seconds=60))
    assert not outcome.ok
    assert outcome.error == "CPU limit (2 s) reached"


def test_a_2_gb_allocation_is_refused():
    outcome = run_calculation("block = bytearray(2 * 1024 ** 3)\nresult = len(block)", {})
    assert not outcome.ok
    assert outcome.error.startswith("memory limit (256 MiB) reached")
    assert "MemoryError" in outcome.error


MODES = pytest.mark.parametrize("user_namespace", [False, True], ids=["own uid", "user namespace"])
FORKS = """
import os, time
started = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        started += 1
except OSError:
    pass
result = started
"""


@MODES
def test_a_fork_bomb_starts_no_process_at_all(user_namespace):
    # when code forks as fast as it can
    outcome = run_calculation("import os\nwhile True:\n    os.fork()", {}, user_namespace=user_namespace)
    # then the first fork is refused: the jail is one process, whose limits are the whole jail's
    assert not outcome.ok
    assert outcome.error.startswith("process limit reached: a calculation cannot start a process")
    assert jailed_processes() == []
    # and code that catches the refusal and keeps trying started none either
    counted = run_calculation(FORKS, {}, user_namespace=user_namespace)
    assert (counted.ok, counted.value) == (True, 0.0), counted.error


@MODES
def test_it_cannot_start_a_thread_either(user_namespace):
    code = "import threading\nthreading.Thread(target=print).start()\nresult = 1"
    outcome = run_calculation(code, {}, user_namespace=user_namespace)
    assert not outcome.ok and "can't start new thread" in outcome.error


WALLS = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
BITS = (os.ST_NOSUID, os.ST_NODEV, os.ST_NOEXEC, os.ST_RDONLY)
def flags(path):
    return "".join(c for c, bit in zip("sdxr", BITS) if os.statvfs(path).f_flag & bit)
print(" ".join(f"{p}={flags(p)}" for p in ("/", "/usr", "/bin", "/lib", "/dev/null", "/sandbox")))
result = libc.prctl(39, 0, 0, 0, 0)  # PR_GET_NO_NEW_PRIVS
"""


@MODES
def test_no_program_in_the_jail_can_gain_a_privilege(user_namespace):
    # when the code reads its mounts' flags and its no-new-privileges bit
    outcome = run_calculation(WALLS, {}, user_namespace=user_namespace)
    # then every mount is nosuid (s), the system and scratch ones nodev (d), nothing writable runs (x),
    # everything but the scratch space is read-only (r); and no exec can grant a privilege
    assert outcome.ok, outcome.error
    assert outcome.stdout.split() == [
        "/=sdr",
        "/usr=sdr",
        "/bin=sdr",
        "/lib=sdr",
        "/dev/null=sxr",
        "/sandbox=sdx",
    ]
    assert outcome.value == 1.0


@MODES
def test_the_scratch_space_is_bounded(user_namespace):
    # given code that writes 24 MiB in files of 60 KB (each under the per-file limit)
    code = "for n in range(400):\n    open(f'f{n}', 'wb').write(b'x' * 60000)\nresult = 1"
    # when / then the scratch tmpfs is full before that, and says so
    outcome = run_calculation(code, {}, user_namespace=user_namespace)
    assert not outcome.ok
    assert outcome.error.startswith("scratch space limit (16 MiB) reached"), outcome.error
    # and so is a flood of empty files (the tmpfs holds at most 256)
    empty = run_calculation(
        "for n in range(5000):\n    open(f'e{n}', 'w')", {}, user_namespace=user_namespace
    )
    assert empty.error.startswith("scratch space limit"), empty.error


def test_output_is_capped():
    outcome = run_calculation("while True:\n    print('x' * 1000)", {})
    assert not outcome.ok
    assert outcome.error == "output limit (64 KiB) reached"
    assert len(outcome.stdout) == 64 * 1024


def test_a_calculation_that_waits_stops_at_the_wall_clock():
    outcome = run_calculation("import time\ntime.sleep(30)\nresult = 1", {}, limits=Limits(wall_seconds=1))
    assert not outcome.ok
    assert outcome.error == "wall clock limit (1 s) reached"
    assert jailed_processes() == []


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("x = 1", "the code must assign a number to `result`, not NoneType"),
        ("result = 'twelve'", "the code must assign a number to `result`, not str"),
        ("result = float('inf')", "`result` is not a finite number (inf)"),
        ("result = 1 / 0", "ZeroDivisionError: division by zero (line 1)"),
    ],
)
def test_it_says_why_a_calculation_gave_no_number(code, error):
    outcome = run_calculation(code, {})
    assert (outcome.ok, outcome.value) == (False, None)
    assert outcome.error == error


@pytest.mark.parametrize(
    ("inputs", "error"),
    [
        ({"import": 1.0}, "input name 'import' is not a usable Python name"),
        ({"a b": 1.0}, "input name 'a b' is not a usable Python name"),
        ({"result": 1.0}, "input name 'result' is not a usable Python name"),
        ({"a": float("nan")}, "input 'a' is not a finite number: nan"),
        ({"a": "12"}, "input 'a' is not a finite number: '12'"),
        ({"a": True}, "input 'a' is not a finite number: True"),
    ],
)
def test_it_refuses_bad_inputs_without_running_anything(inputs, error, tmp_path):
    marker = tmp_path / "ran"
    outcome = run_calculation(f"open({str(marker)!r}, 'w')\nresult = 1", inputs)
    assert (outcome.ok, outcome.error) == (False, error)
    assert not marker.exists()


def test_it_refuses_empty_or_oversized_code():
    assert run_calculation("  ", {}).error == "no code to run"
    assert "too long" in run_calculation("x = 1\n" * 5000, {}).error


def test_the_worker_itself_is_left_alone():
    # the calculation runs in its own process group and namespaces: this process is unaffected
    before = os.getpid()
    run_calculation("import os, signal\nos.kill(1, signal.SIGKILL)\nresult = 1", {})
    assert os.getpid() == before


def test_the_user_namespace_path_isolates_the_same_way():
    # given the isolation a worker that is not root gets: a user namespace in which it is "nobody"
    # (made by the jail's own user, as a worker that is not root makes it; see the MODES tests too)
    good = run_calculation("result = b / a", {"a": 4.0, "b": 10.0}, user_namespace=True)
    assert (good.ok, good.value) == (True, 2.5), good.error
    net = run_calculation(
        "import socket\nsocket.create_connection(('127.0.0.1', 9), 1)", {}, user_namespace=True
    )
    assert net.error.startswith("network is not available")
    target = Path("/tmp") / f"outside-{secrets.token_hex(6)}"
    write = run_calculation(f"open({str(target)!r}, 'w')", {}, user_namespace=True)
    assert write.error.startswith("write outside the working directory refused") and not target.exists()
    jailbreak = run_calculation("import os\nos.chroot('/')", {}, user_namespace=True)
    assert "PermissionError" in jailbreak.error
    loop = run_calculation("while True:\n    pass", {}, limits=Limits(cpu_seconds=1), user_namespace=True)
    assert loop.error == "CPU limit (1 s) reached"
    memory = run_calculation("x = bytearray(2 * 1024 ** 3)", {}, user_namespace=True)
    assert memory.error.startswith("memory limit (256 MiB) reached")
