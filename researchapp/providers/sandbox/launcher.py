"""The sandbox's first stage: build the jail, then become the calculation (stdlib only).

Run as ``python -I -S launcher.py`` with one JSON argument (see ``sandbox.launch_config``), in a
fresh single-threaded process, so none of this happens in a forked copy of a threaded worker.

1. As root, the jail has a user id of its own (``jail_id``); in user-namespace mode root becomes that
   user first, so the namespace is made by an ordinary user, exactly as a worker that is not root
   makes it.
2. New user (unless root), mount, network and PID namespaces (``os.unshare``): the network namespace
   has only a loopback interface that is down, so no address at all can be reached, 127.0.0.1 included.
3. Fork: the child is PID 1 of the new PID namespace; when it ends, the kernel kills every process
   it left behind. This process waits and passes its status on.
4. The child builds a new root on a tmpfs: the system's library folders and the interpreter's
   prefix bound read-only, ``nosuid`` and ``nodev`` (a setuid program runs as its caller), /dev/null,
   /dev/zero and /dev/urandom, and a size-limited tmpfs at /sandbox (``nosuid,nodev,noexec``) — the
   one writable place; the root tmpfs itself is then made read-only. It chroots there.
5. Resource limits and no-new-privileges, then an exec of the interpreter running ``runner.py``.
   The jail is one process: ``RLIMIT_NPROC`` of 1, counted for the jail's own user (its own uid, or a
   user namespace whose count is this run's alone), so the code can start no process and no thread,
   and the address-space limit of that one process is the memory of the whole jail. cgroups would
   do the same for a jail of many processes, but a container's worker can rarely create one.
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
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom")
JAIL_WORKDIR = "/sandbox"
INNER_ID = 65534
JAIL_PROCESSES = 1  # the calculation itself: no process or thread besides it
SETUP_FAILED = 120  # exit status: the jail could not be built (the reason is on stderr)

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


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


def bind_read_only(source, target, flags):
    """Bind ``source`` at ``target``, read-only, with ``flags`` (nosuid, nodev, noexec) added to the
    ones the mount already has."""
    mount(source, target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags | mount_flags(target))


def build_root(config, as_root):
    root, prefix, limits = config["root"], config["prefix"], config["limits"]
    system = MS_NOSUID | MS_NODEV
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount leaks back to the host
    mount("tmpfs", root, "tmpfs", system, "size=64k,mode=0755")
    for path in SYSTEM_DIRS:
        inside = root + path
        if os.path.islink(path):
            os.symlink(os.readlink(path), inside)
        elif os.path.isdir(path):
            os.makedirs(inside)
            bind_read_only(path, inside, system)
    if not os.path.exists(root + prefix):
        os.makedirs(root + prefix)
        bind_read_only(config.get("prefix_source", prefix), root + prefix, system)
    os.makedirs(root + "/dev")
    for device in DEVICES:  # device nodes need "dev"; nothing on them may run
        open(root + device, "w").close()
        bind_read_only(device, root + device, MS_NOSUID | MS_NOEXEC)
    os.makedirs(root + JAIL_WORKDIR)
    # The scratch space is memory: its size and its number of files are bounded here.
    owner = f",uid={config['jail_id']},gid={config['jail_id']}" if as_root else ""
    scratch = f"size={limits['scratch_bytes']},nr_inodes={limits['scratch_files']},mode=0700{owner}"
    mount("tmpfs", root + JAIL_WORKDIR, "tmpfs", system | MS_NOEXEC, scratch)
    mount(None, root, None, MS_REMOUNT | MS_RDONLY | system)
    os.chroot(root)
    os.chdir(JAIL_WORKDIR)


def set_limits(limits):
    cpu = limits["cpu_seconds"]
    # At the hard limit the kernel sends SIGKILL, which even a PID namespace's init cannot ignore.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["output_bytes"] + 1, limits["output_bytes"] + 1))
    # Counted for the jail's own user (see the module's docstring): no second process or thread.
    resource.setrlimit(resource.RLIMIT_NPROC, (JAIL_PROCESSES, JAIL_PROCESSES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def no_new_privileges():
    """From here on no exec grants a privilege: a setuid or file-capability program runs as its caller."""
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")


def reachable_prefix(config):
    """As root, before becoming the jail's user: the interpreter's prefix bound (in a mount namespace
    of this process's own) where that user can reach it, for an interpreter kept where only root can
    (a pyenv under /root). Returns where it is."""
    os.unshare(os.CLONE_NEWNS)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    target = os.path.join(os.path.dirname(config["root"]), "prefix")
    os.makedirs(target)
    bind_read_only(config["prefix"], target, MS_NOSUID | MS_NODEV)
    return target


def become(jail_id):
    """As root: become a user id nobody else has, so the process limit counts this run alone and no
    file on the machine is the code's own. Changing from 0 to it clears every capability."""
    os.setgroups([])
    os.setgid(jail_id)
    os.setuid(jail_id)


def enter_namespaces(user_namespace):
    """Root makes mount, network and PID namespaces; anyone else needs a user namespace for that."""
    flags = os.CLONE_NEWNS | os.CLONE_NEWNET | os.CLONE_NEWPID
    if not user_namespace:
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


def enter_jail(config, as_root):
    """In PID 1 of the new namespaces: build the root, set the limits, drop what is left, exec."""
    try:
        build_root(config, as_root)
        set_limits(config["limits"])
        if as_root:
            become(config["jail_id"])
        no_new_privileges()
    except OSError as error:
        print(f"sandbox unavailable: {error}", file=sys.stderr)
        os._exit(SETUP_FAILED)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the size limit fails with EFBIG
    runner = config["runner"]
    os.execve(config["python"], [config["python"], "-I", "-S", "-c", runner], {})


def main():
    config = json.loads(sys.argv[1])
    is_root = os.geteuid() == 0
    # Root is asked for a user namespace by the tests, to prove the path a worker that is not root takes.
    user_namespace = not is_root or bool(config.get("user_namespace"))
    try:
        if is_root and user_namespace:
            config["prefix_source"] = reachable_prefix(config)
            for path in (os.path.dirname(config["root"]), config["root"]):  # the way to its mount point
                os.chown(path, config["jail_id"], config["jail_id"])
            become(config["jail_id"])
            # A change of user makes a process undumpable, which leaves its /proc/self files to root:
            # it must write its own uid_map.
            libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        enter_namespaces(user_namespace)
    except (OSError, AttributeError) as error:
        print(f"sandbox unavailable: namespaces cannot be created here ({error})", file=sys.stderr)
        return SETUP_FAILED
    child = os.fork()
    if child == 0:
        enter_jail(config, as_root=not user_namespace)
    # Stopped from outside (the wall clock): end the jail's PID 1, which ends everything in it,
    # and reap it here, so no zombie is left to a container's init that may never reap it.
    signal.signal(signal.SIGTERM, lambda signum, frame: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
