"""The sandbox's first stage: build the jail, then become the calculation (stdlib only).

Run as ``python -I -S launcher.py`` with one JSON argument (see ``sandbox.launch_config``), in a
fresh single-threaded process, so none of this happens in a forked copy of a threaded worker.

1. New user, mount, network and PID namespaces (``os.unshare``): the network namespace has only a
   loopback interface that is down, so no address at all can be reached, 127.0.0.1 included.
2. Fork: the child is PID 1 of the new PID namespace; when it ends, the kernel kills every process
   it left behind (a fork bomb dies with it). This process waits and passes its status on.
3. The child builds a new root on a tmpfs: the system's library folders and the interpreter's
   prefix bound read-only, /dev/null, /dev/zero and /dev/urandom, and the working directory at
   /sandbox — the one writable place; the tmpfs itself is then made read-only. It chroots there.
4. Resource limits (CPU seconds, address space, file size, processes, open files, no core dumps)
   and an exec of the interpreter running ``runner.py``. The user namespace maps no user, so the
   exec drops every capability: the code cannot mount, chroot or unshare its way back out.
"""

import ctypes
import json
import os
import re
import resource
import signal
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
JAIL_WORKDIR = "/sandbox"
INNER_ID = 65534
SETUP_FAILED = 120  # exit status: the jail could not be built (the reason is on stderr)

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]


def mount(source, target, fstype, flags, data=None):
    encoded = [value.encode() if value is not None else None for value in (source, target, fstype, data)]
    if libc.mount(encoded[0], encoded[1], encoded[2], flags, encoded[3]) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount {target}: {os.strerror(error)}")


def mount_flags(target):
    """The flags a bind remount must keep: a user namespace may not drop nosuid/nodev/noexec."""
    for line in open("/proc/self/mountinfo"):
        fields = line.split()
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
        if point == target:
            options = set(fields[5].split(","))
            return sum(
                flag
                for name, flag in (("nosuid", MS_NOSUID), ("nodev", MS_NODEV), ("noexec", MS_NOEXEC))
                if name in options
            )
    return 0


def bind(source, target, *, read_only):
    mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | mount_flags(target))


def build_root(config):
    root, workdir, prefix = config["root"], config["workdir"], config["prefix"]
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount leaks back to the host
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
    for path in SYSTEM_DIRS:
        inside = root + path
        if os.path.islink(path):
            os.symlink(os.readlink(path), inside)
        elif os.path.isdir(path):
            os.makedirs(inside)
            bind(path, inside, read_only=True)
    if not os.path.exists(root + prefix):
        os.makedirs(root + prefix)
        bind(prefix, root + prefix, read_only=True)
    os.makedirs(root + "/dev")
    for device in DEVICES:
        open(root + device, "w").close()
        bind(device, root + device, read_only=True)
    os.makedirs(root + JAIL_WORKDIR)
    bind(workdir, root + JAIL_WORKDIR, read_only=False)
    mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chroot(root)
    os.chdir(JAIL_WORKDIR)


def set_limits(limits):
    cpu = limits["cpu_seconds"]
    # At the hard limit the kernel sends SIGKILL, which even a PID namespace's init cannot ignore.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["output_bytes"] + 1, limits["output_bytes"] + 1))
    # Counted per user: as root the jail gets a user id of its own, so this counts its processes alone.
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def enter_namespaces(as_root):
    """Root makes mount, network and PID namespaces; anyone else needs a user namespace for that."""
    flags = os.CLONE_NEWNS | os.CLONE_NEWNET | os.CLONE_NEWPID
    if as_root:
        os.unshare(flags)
        return
    outer_uid, outer_gid = os.geteuid(), os.getegid()  # read first: inside, unmapped ids read 65534
    os.unshare(os.CLONE_NEWUSER | flags)
    # The user is "nobody" in here: not 0, so the exec drops every capability. The tmpfs needs
    # file owners the namespace knows, hence the mapping.
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{INNER_ID} {outer_uid} 1"),
        ("gid_map", f"{INNER_ID} {outer_gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def drop_privileges(jail_id):
    """As root: become a user id nobody else has, so the process limit counts this run alone and no
    file on the machine is the code's own. Changing from 0 to it clears every capability."""
    os.setgroups([])
    os.setgid(jail_id)
    os.setuid(jail_id)


def main():
    config = json.loads(sys.argv[1])
    # Root drops to a user id of its own; anyone else (or root asked to, as the tests do) goes
    # through a user namespace.
    as_root = os.geteuid() == 0 and not config.get("user_namespace")
    try:
        enter_namespaces(as_root)
    except (OSError, AttributeError) as error:
        print(f"sandbox unavailable: namespaces cannot be created here ({error})", file=sys.stderr)
        return SETUP_FAILED
    child = os.fork()
    if child == 0:
        try:
            if as_root:
                os.chown(config["workdir"], config["jail_id"], config["jail_id"])
            build_root(config)
            set_limits(config["limits"])
            if as_root:
                drop_privileges(config["jail_id"])
        except OSError as error:
            print(f"sandbox unavailable: {error}", file=sys.stderr)
            os._exit(SETUP_FAILED)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the size limit fails with EFBIG
        runner = config["runner"]
        os.execve(config["python"], [config["python"], "-I", "-S", "-c", runner], {})
    # Stopped from outside (the wall clock): end the jail's PID 1, which ends everything in it,
    # and reap it here, so no zombie is left to a container's init that may never reap it.
    signal.signal(signal.SIGTERM, lambda signum, frame: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
