"""One warm sandbox: a hardened container whose PID 1 is the judging agent.

The host starts the agent over the container's attached stdin (one Docker attach stream for the
container's whole life, which also carries the agent's stderr), then talks to it over two
FIFOs that bypass Docker (:mod:`._channel`), or over the attach stream where those cannot be
made. No container start and no ``docker exec`` happens per job or per test.
"""

from __future__ import annotations

import itertools
import os
import socket
import struct
import time
from collections import deque
from typing import Any

import docker
import docker.errors
from docker.models.containers import Container

from judge_service.sandbox import _bundle
from judge_service.sandbox._cgroup_cpu import container_cpu
from judge_service.sandbox._channel import FifoChannel
from judge_service.sandbox.agent import wire
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxCrashed, SandboxTimeout, SandboxUnavailable
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB

DOCKER_STREAM_HEADER = struct.Struct(">BxxxI")
# How long a crashed agent's last words may take to come through Docker's attach stream.
STDERR_GRACE_S = 1.0
STDOUT, STDERR = 1, 2
SANDBOX_LABEL = "org.judge.sandbox"
OWNER_LABEL = "org.judge.owner"
OWNER = f"{socket.gethostname()}:{os.getpid()}"
# SysV message queues and semaphore sets are kernel memory that no process's RSS shows, and the
# kernel's defaults allow gigabytes of them (32000 queues of 16 KiB; 32000 sets of up to 32000
# semaphores). A judged program needs few: these are the classic Linux defaults.
MSG_QUEUES = 32
SEMAPHORES = "250 32000 32 128"  # per set, in all, per semop(2) call, sets
_serial = itertools.count(1)


class Sandbox:
    """A started container plus its agent; use :meth:`request` from one thread at a time."""

    def __init__(
        self,
        client: docker.DockerClient,
        language: str,
        image_id: str,
        settings: SandboxConfig,
        cgroup_parent: str = "",
    ) -> None:
        self.language = language
        self._cgroup_parent = cgroup_parent
        self.jobs_run = 0
        self._stderr: deque[bytes] = deque(maxlen=64)
        self._pending = bytearray()
        self._frames = bytearray()
        bundle = _bundle.agent_bundle()
        self._channel = FifoChannel.create(settings.sandbox_user, settings.sandbox_channel_dir)
        try:
            self._container = self._create(client, image_id, bundle, settings)
            attached = self._container.attach_socket(
                params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            self._socket: socket.socket = getattr(attached, "_sock", attached)
            self._attached = attached
            self._container.start()
            self._socket.sendall(bundle)
            zygote = _bundle.zygote_bundle() if language == "python" else b""
            init: wire.InitFrame = {
                "op": "init",
                "zygote_bundle": zygote.decode(),
                "zygote_argv": _bundle.boot_argv(zygote, _bundle.ZYGOTE_MODULE, site=True),
            }
            if self._channel:
                init["channel"] = self._channel.agent_paths()
            ready, _ = self.request(init, timeout=settings.sandbox_start_timeout_s)
            self._take_channel(ready)
        except docker.errors.DockerException as error:
            self.close()
            raise SandboxUnavailable(f"cannot start a {language} sandbox: {error}") from error
        except Exception:
            self.close()
            raise
        if ready.get("op") != "ready":
            self.close()
            raise SandboxCrashed(f"{language} sandbox agent did not start: {ready}")
        self.id: str = self._container.id or ""
        # What its container's CPU time reads from, found once (a sleeping job lends its slot).
        self.cpu_seconds = container_cpu(self.id, settings.host_cgroup_dir, cgroup_parent)

    def _create(
        self,
        client: docker.DockerClient,
        image_id: str,
        bundle: bytes,
        settings: SandboxConfig,
    ) -> Container:
        """The container, with the channel's directory mounted; without it (frames then use the
        attach stream) when Docker cannot mount it, as a daemon that does not see the host's
        directory cannot."""
        language = self.language
        options: dict[str, Any] = dict(
            image=image_id,
            command=_bundle.boot_argv(bundle, _bundle.AGENT_MODULE, site=False),
            name=f"judge-{language}-{os.getpid()}-{next(_serial)}-{os.urandom(3).hex()}",
            labels={SANDBOX_LABEL: "1", OWNER_LABEL: OWNER, "org.judge.language": language},
            user=settings.sandbox_user,
            network_mode="none",
            read_only=True,
            tmpfs=tmpfs_mounts(settings),
            ipc_mode="private",
            sysctls=ipc_sysctls(settings),
            # The agent reads its own cgroup's memory.stat for the shared memory of a test.
            cgroupns="private",
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            pids_limit=settings.sandbox_pids_limit,
            mem_limit=f"{settings.sandbox_memory_mb}m",
            memswap_limit=f"{settings.sandbox_memory_mb}m",
            working_dir="/work",
            environment={"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
            stdin_open=True,
            detach=True,
        )
        if self._cgroup_parent:  # every sandbox under one cap (see _cgroup_memory)
            options["cgroup_parent"] = self._cgroup_parent
        if self._channel:
            try:
                return client.containers.create(**options, mounts=self._channel.docker_mounts())
            except docker.errors.APIError as error:
                if error.status_code != 400:
                    raise
                self._channel.close()
                self._channel = None
        return client.containers.create(**options)

    def request(
        self, header: wire.HostFrame, blob: bytes = b"", *, timeout: float
    ) -> tuple[wire.AgentFrame, bytes]:
        """Send one frame and wait for the agent's answer (SandboxTimeout past ``timeout``)."""
        deadline = time.monotonic() + timeout
        frame = wire.encode(header, blob)
        if self._channel and self._channel.connected:
            self._drain_attach()
            try:
                self._channel.send(frame, deadline)
            except TimeoutError as error:
                raise SandboxTimeout(f"{self.language} sandbox did not take a job") from error
            except OSError as error:
                raise SandboxCrashed(f"{self.language} sandbox is gone: {error}") from error
        else:
            try:
                self._socket.sendall(frame)
            except OSError as error:
                raise SandboxCrashed(f"{self.language} sandbox is gone: {error}") from error
        header_size, blob_size = wire.sizes(self._read_stdout(wire.PREFIX.size, deadline))
        reply = wire.agent_frame(self._read_stdout(header_size, deadline))
        return reply, self._read_stdout(blob_size, deadline)

    def _take_channel(self, ready: wire.AgentFrame) -> None:
        """Frames go over the FIFOs from now on if the agent opened them; else the files go."""
        if not self._channel:
            return
        if ready.get("op") == "ready" and ready.get("channel") == "fifo":
            try:
                self._channel.connect()
                return
            except OSError as error:
                raise SandboxCrashed(f"{self.language} sandbox channel failed: {error}") from error
        self._channel.close()
        self._channel = None

    def diagnostics(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")[-4000:]

    def close(self) -> None:
        channel = getattr(self, "_channel", None)
        if channel is not None:
            channel.close()
        container = getattr(self, "_container", None)
        for closable in (getattr(self, "_attached", None), getattr(self, "_socket", None)):
            try:
                if closable is not None:
                    closable.close()
            except OSError:
                pass
        if container is not None:
            try:
                container.remove(force=True)
            except docker.errors.DockerException:
                pass

    def _read_stdout(self, size: int, deadline: float) -> bytes:
        while len(self._frames) < size:
            self._fill(deadline)
        data = bytes(self._frames[:size])
        del self._frames[:size]
        return data

    def _fill(self, deadline: float) -> None:
        if self._channel and self._channel.connected:
            try:
                chunk = self._channel.receive(deadline)
            except TimeoutError as error:
                raise SandboxTimeout(f"{self.language} sandbox did not answer in time") from error
            except OSError as error:
                raise SandboxCrashed(f"{self.language} sandbox channel failed: {error}") from error
            if not chunk:
                self._collect_stderr(time.monotonic() + STDERR_GRACE_S)
                raise SandboxCrashed(
                    f"{self.language} sandbox agent exited; its stderr: {self.diagnostics()!r}"
                )
            self._frames += chunk
            return
        self._fill_from_attach(deadline)

    def _collect_stderr(self, deadline: float) -> None:
        """What the agent wrote to stderr before it ended, from the attach stream."""
        try:
            while True:
                self._fill_from_attach(deadline)
        except (SandboxTimeout, SandboxCrashed):
            pass

    def _fill_from_attach(self, deadline: float) -> None:
        """Read from the Docker attach stream and demultiplex it into stdout and stderr."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SandboxTimeout(f"{self.language} sandbox did not answer in time")
        self._socket.settimeout(remaining)
        try:
            chunk = self._socket.recv(1 << 20)
        except TimeoutError as error:
            raise SandboxTimeout(f"{self.language} sandbox did not answer in time") from error
        except OSError as error:
            raise SandboxCrashed(f"{self.language} sandbox stream failed: {error}") from error
        if not chunk:
            raise SandboxCrashed(
                f"{self.language} sandbox agent exited; its stderr: {self.diagnostics()!r}"
            )
        self._demultiplex(chunk)

    def _drain_attach(self) -> None:
        """Keep what the container wrote to its stderr since the last job (the agent's and its
        helpers'), without waiting: frames go over the FIFOs, and a stream no one reads would
        stop them (Docker holds 1-4 MB) once it was full."""
        self._socket.setblocking(False)
        try:
            while chunk := self._socket.recv(1 << 20):
                self._demultiplex(chunk)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError as error:
            raise SandboxCrashed(f"{self.language} sandbox stream failed: {error}") from error

    def _demultiplex(self, chunk: bytes) -> None:
        self._pending += chunk
        while len(self._pending) >= DOCKER_STREAM_HEADER.size:
            stream, size = DOCKER_STREAM_HEADER.unpack_from(self._pending)
            end = DOCKER_STREAM_HEADER.size + size
            if len(self._pending) < end:
                break
            payload = bytes(self._pending[DOCKER_STREAM_HEADER.size : end])
            del self._pending[:end]
            if stream == STDOUT:
                self._frames += payload
            elif stream == STDERR:
                self._stderr.append(payload)


def tmpfs_mounts(settings: SandboxConfig) -> dict[str, str]:
    """The sandbox's writable mounts, each with its size and its inodes capped (see
    ``SandboxConfig.sandbox_tmpfs_inodes``); /dev/shm too, in place of Docker's, whose inodes
    are not."""
    inodes = f"nr_inodes={settings.sandbox_tmpfs_inodes}"
    return {
        "/work": f"rw,exec,nosuid,nodev,size={settings.sandbox_work_mb}m,{inodes},mode=1777",
        "/tmp": f"rw,exec,nosuid,nodev,size={settings.sandbox_tmp_mb}m,{inodes},mode=1777",
        "/dev/shm": f"rw,noexec,nosuid,nodev,size=64m,{inodes},mode=1777",
    }


def ipc_sysctls(settings: SandboxConfig) -> dict[str, str]:
    """Limits of the sandbox's own IPC namespace (docker sets them in a private one)."""
    largest_mb = min(settings.max_memory_limit_mb, settings.sandbox_memory_mb - SANDBOX_OVERHEAD_MB)
    page = os.sysconf("SC_PAGE_SIZE")
    return {
        # The agent counts segments as a test's memory; no segment, and not all of them
        # together, may exceed the largest memory limit, which bounds what escapes between two
        # of its samples.
        "kernel.shmmax": str(largest_mb << 20),
        "kernel.shmall": str((largest_mb << 20) // page),
        # A segment goes with its last attacher (or its creator, if never attached) instead of
        # outliving every process of the test.
        "kernel.shm_rmid_forced": "1",
        "kernel.msgmni": str(MSG_QUEUES),
        "kernel.sem": SEMAPHORES,
    }


def remove_stale_sandboxes(client: docker.DockerClient) -> int:
    """Remove sandbox containers whose owning judge process on this host has died."""
    removed = 0
    # The list call's own entries: docker-py's containers.list() inspects each container it
    # lists, and one that another judge process removes in between (a sandbox it destroyed)
    # would fail this whole call, and the job that started this pool with it.
    for entry in client.api.containers(all=True, filters={"label": SANDBOX_LABEL}):
        host, _, pid = (entry.get("Labels") or {}).get(OWNER_LABEL, ":").partition(":")
        if host != socket.gethostname() or _alive(int(pid or 0)):
            continue
        try:
            client.api.remove_container(entry["Id"], force=True)
            removed += 1
        except docker.errors.DockerException:  # gone already
            pass
    return removed


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
