"""Build the per-language sandbox images with the docker CLI.

Each language has a Dockerfile under ``sandbox_images/<lang>/`` (overridable with the
``JUDGE_IMAGES_DIR`` environment variable) built as ``<prefix><lang>`` (the pool's
``image_prefix`` setting) on top of ``<prefix>base``, itself on ``debian:trixie-slim`` (Debian 13,
for current toolchains: g++ 14, rustc 1.85, Go 1.24, OpenJDK 21, Node 20, Python 3.13).  When no
registry is reachable that base image is made locally with ``debootstrap`` from the Debian
mirror the machine's apt already uses (whatever release the machine runs), then ``docker import``.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from judge_service.sandbox._build_context import staged_context
from judge_service.sandbox.errors import ImageBuildError
from judge_service.sandbox.languages import LANGUAGES as SPECS

LANGUAGES: tuple[str, ...] = tuple(SPECS)
# Each image once, in the table's order (language variants share their image).
IMAGES: tuple[str, ...] = tuple(dict.fromkeys(spec.image_name for spec in SPECS.values()))
SANDBOX_BASE = "base"
HASH_LABEL = "org.judge.build-hash"
# Stamped on the base when it is debootstrapped here and inherited by every image built on it:
# `scripts/test --fresh-store` keeps the images that carry an org.judge.* label and forgets
# the rest, as a fresh machine would not have them.
MADE_BY_LABEL = "org.judge.made-by"
SUITE = "trixie"
BASE_IMAGE = f"debian:{SUITE}-slim"
# Releases whose mirror lines name a Debian mirror (it serves every release, SUITE too).
_DEBIAN_SUITES = frozenset({"bookworm", "trixie", "forky", "sid", "stable", "testing"})
DEFAULT_MIRROR = "http://deb.debian.org/debian"
PULL_TIMEOUT_S = 60
_TAIL_LINES = 40

Log = Callable[[str], None]


def image_tag(language: str, prefix: str) -> str:
    """The name the pool starts ``language``'s sandboxes from (``SandboxPool._image_id``)."""
    spec = SPECS.get(language)
    return prefix + (spec.image_name if spec is not None else language)


def setup_images(prefix: str) -> tuple[str, ...]:
    """Every image ``judge images build`` makes for all languages, as set-up runs it: the
    Debian base, the sandbox base and each language's image under ``prefix``."""
    return (
        BASE_IMAGE,
        prefix + SANDBOX_BASE,
        *(prefix + image for image in _check_languages(None)),
    )


def build_command(language: str, prefix: str) -> str:
    """The command that builds ``language``'s image under ``prefix``, for error messages."""
    env = "" if prefix == "judge-sandbox-" else f"JUDGE_IMAGE_PREFIX={prefix} "
    return f"{env}judge images build --lang {language}"


def _parent(image: str) -> str:
    """The image ``image`` is built on: the sandbox base, or another language's."""
    spec = SPECS.get(image)
    return spec.parent_image if spec is not None and spec.parent_image else SANDBOX_BASE


def pch_flags(compile_argv: Sequence[str]) -> list[str]:
    """The options of a compile command that a precompiled header must be built with: all but
    the output file and the libraries and linker options, which only the link reads."""
    link_only = ("-l", "-Wl,", "-fuse-ld=")
    flags: list[str] = []
    arguments = iter(compile_argv[1:])
    for argument in arguments:
        if argument == "-o":
            next(arguments, None)
        elif argument.startswith("-") and not argument.startswith(link_only):
            flags.append(argument)
    return flags


def build_args(language: str, prefix: str) -> dict[str, str]:
    """``--build-arg`` values of a language's Dockerfile."""
    args = {"SANDBOX_BASE": prefix + _parent(language)}
    if language == "cpp":
        args["PCH_FLAGS"] = " ".join(pch_flags(SPECS["cpp"].compile_argv))
        args["PCH_FLAGS_CPP17"] = " ".join(pch_flags(SPECS["cpp17"].compile_argv))
        args["PCH_PRELUDES"] = " ".join(",".join(prelude) for prelude in SPECS["cpp"].preludes)
    return args


def images_dir() -> Path:
    override = os.environ.get("JUDGE_IMAGES_DIR")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "sandbox_images"


def _check_languages(languages: Sequence[str] | None) -> list[str]:
    """The images to build for ``languages`` (default: all), each after the one it is built on."""
    chosen = list(LANGUAGES if languages is None else languages)
    unknown = [lang for lang in chosen if lang not in SPECS and lang not in IMAGES]
    if unknown:
        raise ValueError(f"unknown language(s) {unknown}; valid: {', '.join(LANGUAGES)}")
    ordered: list[str] = []
    for lang in chosen:
        image = SPECS[lang].image_name if lang in SPECS else lang
        lineage = [image]
        while _parent(lineage[-1]) != SANDBOX_BASE:
            lineage.append(_parent(lineage[-1]))
        ordered += [name for name in reversed(lineage) if name not in ordered]
    return ordered


def _require_docker() -> None:
    hint = "run scripts/ensure-docker.sh"
    if shutil.which("docker") is None:
        raise ImageBuildError(f"docker CLI not found; {hint}")
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    if info.returncode != 0:
        raise ImageBuildError(f"docker daemon not usable ({info.stderr.strip()[-300:]}); {hint}")


def _image_exists(ref: str) -> bool:
    result = subprocess.run(
        ["docker", "image", "inspect", ref],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return result.returncode == 0


def _run_streaming(cmd: Sequence[str], log: Log) -> None:
    """Run ``cmd``, sending each output line to ``log``; raise ImageBuildError on failure."""
    tail: deque[str] = deque(maxlen=_TAIL_LINES)
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail.append(line)
            log(line)
    if proc.returncode != 0:
        raise ImageBuildError(
            f"{' '.join(cmd)} failed (exit {proc.returncode}):\n" + "\n".join(tail)
        )


def _deb822_stanzas(text: str) -> list[dict[str, str]]:
    stanzas: list[dict[str, str]] = []
    current: dict[str, str] = {}
    key = ""
    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if current:
                stanzas.append(current)
            current, key = {}, ""
        elif raw[0] in " \t" and key:
            current[key] += " " + raw.strip()
        elif ":" in raw:
            key, value = raw.split(":", 1)
            key = key.strip().lower()
            current[key] = value.strip()
    return stanzas


def find_mirror(etc_apt: Path = Path("/etc/apt")) -> str:
    """First ``deb`` URI in the machine's apt sources that serves a Debian release's main: the
    mirror to debootstrap ``SUITE`` from (a bookworm host's mirror serves trixie too)."""
    list_files = [etc_apt / "sources.list"]
    list_files += [Path(p) for p in sorted(glob.glob(str(etc_apt / "sources.list.d" / "*.list")))]
    for path in list_files:
        try:
            lines = path.read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            line = re.sub(r"\[[^\]]*\]", " ", line.split("#", 1)[0])  # drop [options]
            words = line.split()
            if len(words) >= 4 and words[0] == "deb" and words[2] in _DEBIAN_SUITES:
                if "main" in words[3:]:
                    return words[1].rstrip("/")
    for name in sorted(glob.glob(str(etc_apt / "sources.list.d" / "*.sources"))):
        try:
            stanzas = _deb822_stanzas(Path(name).read_text())
        except OSError:
            continue
        for stanza in stanzas:
            if stanza.get("enabled", "yes").lower() == "no":
                continue
            if "deb" not in stanza.get("types", "").split():
                continue
            if (
                _DEBIAN_SUITES & set(stanza.get("suites", "").split())
                and "main" in stanza.get("components", "").split()
            ):
                uris = stanza.get("uris", "").split()
                if uris:
                    return uris[0].rstrip("/")
    return DEFAULT_MIRROR


# The official slim image's dpkg filter, so later apt installs skip docs, man pages, locales.
_DPKG_SLIM = """\
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
"""


def _slim_rootfs(rootfs: Path, mirror: str) -> None:
    """Point apt at ``mirror``, install the slim dpkg filter and drop apt caches."""
    (rootfs / "etc/apt/sources.list").write_text(f"deb {mirror} {SUITE} main\n")
    (rootfs / "etc/dpkg/dpkg.cfg.d/docker-slim").write_text(_DPKG_SLIM)
    for pattern in ("var/cache/apt/archives/*.deb", "var/cache/apt/*.bin", "var/lib/apt/lists/*"):
        for path in rootfs.glob(pattern):
            if path.is_file():
                path.unlink()


def ensure_base_image(log: Log = print) -> None:
    """Make ``BASE_IMAGE`` (``debian:trixie-slim``) available: local, pulled, or debootstrapped."""
    _require_docker()
    if _image_exists(BASE_IMAGE):
        return
    log(f"pulling {BASE_IMAGE} (timeout {PULL_TIMEOUT_S}s)")
    try:
        pull = subprocess.run(
            ["docker", "pull", BASE_IMAGE], capture_output=True, timeout=PULL_TIMEOUT_S
        )
        if pull.returncode == 0:
            return
        reason = pull.stderr.decode(errors="replace").strip()[-300:]
    except subprocess.TimeoutExpired:
        reason = "timed out"
    log(f"pull failed: {reason}")
    if shutil.which("debootstrap") is None:
        raise ImageBuildError(f"cannot pull {BASE_IMAGE} and debootstrap is not installed")
    mirror = find_mirror()
    log(f"building {BASE_IMAGE} with debootstrap from {mirror}")
    workdir = tempfile.mkdtemp(prefix="judge-rootfs-")
    rootfs = Path(workdir) / "rootfs"
    try:
        _run_streaming(["debootstrap", "--variant=minbase", SUITE, str(rootfs), mirror], log)
        _slim_rootfs(rootfs, mirror)
        with subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE) as tar:
            imported = subprocess.run(
                [
                    "docker",
                    "import",
                    "--change",
                    f"LABEL {MADE_BY_LABEL}=judge-images-build",
                    "-",
                    BASE_IMAGE,
                ],
                stdin=tar.stdout,
                capture_output=True,
            )
        if tar.returncode != 0 or imported.returncode != 0:
            err = imported.stderr.decode(errors="replace").strip().splitlines()[-_TAIL_LINES:]
            raise ImageBuildError(
                f"importing {BASE_IMAGE} failed (tar exit {tar.returncode}, docker import exit "
                f"{imported.returncode}):\n" + "\n".join(err)
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    log(f"imported {BASE_IMAGE}")


def build_images(
    languages: Sequence[str] | None = None,
    *,
    prefix: str,
    log: Log = print,
    rebuild: bool = False,
) -> list[str]:
    """Build (or find up to date) the sandbox image of each language, named ``prefix`` +
    language; return their tags.

    An image is rebuilt when its build context (Dockerfile and files), its build arguments
    (the C++ compile options) or the shared sandbox base changed since it was built: their
    hash is stored as an image label.
    """
    chosen = _check_languages(languages)
    ensure_base_image(log)
    root = images_dir()
    hashes = {SANDBOX_BASE: _context_hash(root / SANDBOX_BASE, "", {})}
    base_tag = prefix + SANDBOX_BASE
    _build_if_stale(base_tag, root / SANDBOX_BASE, hashes[SANDBOX_BASE], {}, rebuild, log)
    tags: list[str] = []
    for image in chosen:
        tag, args = prefix + image, build_args(image, prefix)
        hashes[image] = _context_hash(root / image, hashes[_parent(image)], args)
        _build_if_stale(tag, root / image, hashes[image], args, rebuild, log)
        tags.append(tag)
    return tags


def _context_hash(context: Path, parent_hash: str, args: dict[str, str]) -> str:
    digest = hashlib.sha256(parent_hash.encode())
    for path in sorted(p for p in context.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(context)).encode() + b"\0" + path.read_bytes())
    for name, value in sorted(args.items()):
        digest.update(f"--build-arg {name}={value}\0".encode())
    return digest.hexdigest()[:16]


def _build_if_stale(
    tag: str, context: Path, build_hash: str, args: dict[str, str], rebuild: bool, log: Log
) -> None:
    if not rebuild and _image_label(tag, HASH_LABEL) == build_hash:
        return
    log(f"building {tag} from {context}")
    arg_options = [
        option for name, value in args.items() for option in ("--build-arg", f"{name}={value}")
    ]
    with staged_context(context) as staged:
        _run_streaming(
            [
                "docker",
                "build",
                "--force-rm",
                "--network",
                "host",
                "--label",
                f"{HASH_LABEL}={build_hash}",
                *arg_options,
                "-t",
                tag,
                str(staged),
            ],
            log,
        )


def _image_label(ref: str, label: str) -> str | None:
    result = subprocess.run(
        ["docker", "image", "inspect", "--format", f'{{{{index .Config.Labels "{label}"}}}}', ref],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() if result.returncode == 0 else None
