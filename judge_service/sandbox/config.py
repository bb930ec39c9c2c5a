"""The engine's settings: sandbox containers, job limits, images and the compile cache.

Every field can be set as ``JUDGE_<NAME>`` (or in ``.env``). The service's ``Settings``
extends this class, so the same variables configure the engine inside the service, and a
program that uses only the engine (a benchmark, the empirical complexity judge's plot) reads
them without the service's settings.
"""

from __future__ import annotations

import os

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["SandboxConfig"]


class SandboxConfig(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JUDGE_", env_file=".env", extra="ignore")

    sandboxes_per_language: int = Field(
        default_factory=lambda: max(32, 4 * (os.cpu_count() or 2)),
        ge=1,
        description="Most warm sandbox containers per language (default: four per core, at "
        "least 32, since verl sends up to 64 requests at once). Sandboxes beyond the CPU slots "
        "wait warm for one (cpu_slots), so a job never waits for a container to start.",
    )
    cpu_slots: int | None = Field(
        None,
        ge=1,
        description="Most jobs judged at once on this machine, by every judging process on it "
        "together (default: the CPUs this process may use, by affinity and cgroup quota). A "
        "job holds a slot for its compile and tests; its clocks start when it has one, so a "
        "busy batch makes a job wait, never a program slow.",
    )
    cpu_slots_dir: str | None = Field(
        None,
        description="Where the slots' lock files live, shared by every judging process on the "
        "machine (default: judge-cpu-slots in the temporary directory), with the memory gate's "
        "(a test the OOM killer stopped is judged again alone on the host). A worker in a "
        "container of its own mounts the host's directory here to share the host's slots.",
    )
    host_cgroup_dir: str = Field(
        "/sys/fs/cgroup",
        description="Where the host's cgroup files are: to read a sandbox's CPU time (a job "
        "whose sandbox sleeps lends its CPU slot) and to cap every sandbox's memory together "
        "(sandbox_memory_total_mb). A judge in a container of its own (the compose worker) "
        "mounts the host's there, writable.",
    )
    sandbox_memory_mb: int = Field(
        2048, ge=256, description="Memory cap of a sandbox container (the hard backstop)."
    )
    sandbox_memory_total_mb: int | None = Field(
        None,
        ge=256,
        description="Memory every sandbox on the host may take together, kernel memory "
        "included, held by the kernel on their parent cgroup (default: 80% of the host's "
        "memory). Reached only when many programs near their limits at once: the kernel's OOM "
        "killer then stops a program, whose test is judged again alone on the host once idle "
        "sandboxes are closed, and never cached (limit host_memory).",
    )
    sandbox_cgroup_parent: str = Field(
        "judge_sandboxes",
        pattern=r"^[A-Za-z0-9_-]*$",
        description="The parent cgroup every sandbox is created under, capped at "
        "sandbox_memory_total_mb (written under host_cgroup_dir, as root, for Docker's "
        "cgroupfs driver; a systemd slice of this name under the systemd driver, whose cap "
        "/health says how to set). Empty: Docker's default parent, and no common cap.",
    )
    sandbox_memory_budget_mb: int | None = Field(
        None,
        ge=256,
        description="Memory the live sandboxes may take together (default: no bound): each "
        "sandbox holds 192 MB of it for the judge's own processes, each running job its memory "
        "limit and its runtime's allowance. A job past it waits its turn, closing idle "
        "sandboxes of any language when that makes room: sandboxes together never promise the "
        "host more than it has. Off by default: verl's 64 concurrent /run_code requests carry "
        "no memory limit (1 GB each), and 80% of a 24 GB host ran 15 at a time, too few to "
        "answer before verl's deadline when a third of them loop.",
    )
    sandbox_idle_s: float = Field(
        300.0,
        ge=0,
        description="Seconds a warm sandbox may sit unused before it is closed (0: never), so "
        "a language used once holds no containers; its pool starts again on the next job.",
    )
    sandbox_pids_limit: int = Field(128, ge=16, description="Most processes in one sandbox.")
    sandbox_work_mb: int = Field(256, ge=16, description="Size of the /work tmpfs.")
    sandbox_tmp_mb: int = Field(64, ge=8, description="Size of the /tmp tmpfs.")
    sandbox_tmpfs_inodes: int = Field(
        16384,
        ge=1024,
        description="Most files (inodes) in each of a sandbox's tmpfs mounts (/work, /tmp, "
        "/dev/shm). Inodes and extended attributes are kernel memory no tmpfs size bounds: a "
        "program could hold hundreds of MB of it in empty files or 64 KB xattrs. The kernel "
        "charges a mount's inodes and xattrs to one space of 1 KB per allowed inode (16 MB at "
        "the default), and the agent counts what they hold as the test's memory. Go's compile "
        "links about 2,000 cache files into /tmp.",
    )
    test_cache_mb: int = Field(
        64,
        ge=0,
        description="Stdin test data (inputs and expected outputs) each sandbox's agent keeps "
        "in its memory for later jobs, least recently used out first: a problem's tests travel "
        "to a sandbox once (0: every job carries its tests). Part of the sandbox's memory cap, "
        "and held by every warm sandbox: at most sandboxes_per_language times this per language.",
    )
    appended_asserts: bool = Field(
        False,
        description="Accept MultiPL-E style assert mode for the languages without an assert "
        "harness (C, C++, Java, Rust, PHP, Ruby, Lua, R, Scala, OCaml): a test's code is "
        "appended to the program and runs in its process, so a program can exit early or "
        "redefine assert and pass. Off: such jobs are refused. Turn on only for data no "
        "policy is optimised against (evaluating, filtering), never for an RL reward.",
    )
    sandbox_user: str = Field("65534:65534", description="Non-root uid:gid sandboxes run as.")
    sandbox_start_timeout_s: float = Field(60.0, gt=0, description="Container start deadline.")
    sandbox_channel_dir: str | None = Field(
        None,
        description="Where the host makes each sandbox's two FIFOs (frames past Docker's attach "
        "stream; see sandbox/_channel.py), a path the Docker daemon sees at the same place "
        "(default: the temporary directory). A judge in a container of its own (the compose "
        "worker) shares one with the host. Where the FIFOs cannot be had, frames use the "
        "attach stream.",
    )
    image_prefix: str = Field("judge-sandbox-", description="Sandbox images are PREFIX<language>.")
    max_source_bytes: int = Field(1 << 20, ge=1, description="Largest accepted source code.")
    max_tests: int = Field(1000, ge=1, description="Most tests in one job.")
    max_time_limit_ms: int = Field(30000, ge=1, description="Largest per-test CPU time limit.")
    max_memory_limit_mb: int = Field(1024, ge=16, description="Largest per-test memory limit.")
    max_output_limit_kb: int = Field(262144, ge=1, description="Largest per-test output limit.")
    report_bytes: int = Field(
        4096, ge=0, description="stdout/stderr kept per test in results (the rest is cut)."
    )
    max_reply_output_bytes: int = Field(
        8 << 20,
        ge=0,
        description="Most program output one reply carries: all tests' stdout and stderr of a "
        "job, all compiler output of a /v1 batch; past it output is cut and marked truncated.",
    )
    warm_compilers: bool = Field(
        True,
        description="Compile Java on a javac kept warm in each Java sandbox (a long-lived JVM "
        "the programs cannot reach) instead of starting javac for every job.",
    )
    compile_cache_mb: int = Field(512, ge=0, description="Memory for cached compiled programs.")
    job_budget_factor: float = Field(
        3.0,
        ge=1,
        description="A job's wall-clock budget, as a multiple of the sum of its tests' CPU "
        "limits (plus 5 s); tests not started when it is spent are TLE (limit: budget).",
    )
    max_job_wall_s: float = Field(
        900.0, gt=0, description="The most wall-clock time one job may hold a sandbox for."
    )
    starved_wall_factor: float = Field(
        4.0,
        ge=1,
        le=16,
        description="How far a process's wall limit may move on while the host keeps it waiting "
        "for a CPU, as a multiple of the limit (the wall clock stops what sleeps or blocks, not "
        "what the host starves); 1 keeps the wall limit fixed.",
    )
    wall_retries: int = Field(
        2,
        ge=0,
        le=5,
        description="Times a test stopped by the wall clock while starved of CPU (or a compile "
        "stopped by its wall-clock backstop) is judged again, with twice the wall time each time.",
    )
