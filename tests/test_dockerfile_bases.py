"""Every image a Dockerfile of this repository builds on is one that set-up makes.

A fresh machine has no registry and an empty Docker store: the only images there are the ones
``judge images build`` (run by ``scripts/setup.sh``) makes, in its order. A Dockerfile whose
``FROM`` (or ``COPY --from``) names anything else builds only where an earlier run happened to
leave that image behind, as the stack's ``debian:bookworm-slim`` once did. Read statically,
without Docker: the build arguments are the ones the builders pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from judge_service.sandbox import images

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "judge-sandbox-"
_SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__"}
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


@dataclass(frozen=True)
class Build:
    """One Dockerfile as a builder of the repository builds it."""

    dockerfile: Path
    args: dict[str, str]
    made_before: frozenset[str]  # the images set-up has made by the time this one builds
    builder: str


def _repository_dockerfiles() -> set[Path]:
    found: set[Path] = set()
    for path in ROOT.rglob("*"):
        if _SKIPPED_DIRS & set(path.relative_to(ROOT).parts) or not path.is_file():
            continue
        name = path.name
        if name == "Dockerfile" or name.endswith(".Dockerfile") or name.startswith("Dockerfile."):
            found.add(path)
    return found


def _sandbox_builds() -> list[Build]:
    """``judge images build``: the Debian base, then the sandbox base, then each image after
    the one it is built on (its own order)."""
    made = {images.BASE_IMAGE}
    root = images.images_dir()
    builds = [Build(root / images.SANDBOX_BASE / "Dockerfile", {}, frozenset(made), "images")]
    made.add(PREFIX + images.SANDBOX_BASE)
    for image in images.setup_images(PREFIX)[2:]:
        name = image.removeprefix(PREFIX)
        args = images.build_args(name, PREFIX)
        builds.append(Build(root / name / "Dockerfile", args, frozenset(made), "images"))
        made.add(image)
    return builds


def _compose_builds() -> list[Build]:
    """The compose stack, built after set-up (scripts/compose-smoke runs `judge images build`
    first): every image set-up makes is there."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    made = frozenset(images.setup_images(PREFIX))
    builds: list[Build] = []
    for name, service in compose["services"].items():
        build = service.get("build")
        if build is None:
            continue
        context = ROOT / build["context"]
        dockerfile = context / build.get("dockerfile", "Dockerfile")
        args = {str(key): str(value) for key, value in (build.get("args") or {}).items()}
        builds.append(Build(dockerfile.resolve(), args, made, f"compose service {name}"))
    return builds


def _instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, rest) of each instruction, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        keyword, _, rest = (pending + line).strip().partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        pending = ""
    return instructions


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _substitute(word: str, values: dict[str, str], where: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if not values.get(name):
            raise AssertionError(f"{where}: ${name} has no value where the builder builds it")
        return values[name]

    return _VARIABLE.sub(value, word)


def external_images(build: Build) -> list[str]:
    """The images ``build`` reads that are not stages of its own Dockerfile."""
    where = _shown(build.dockerfile)
    values: dict[str, str] = {}
    stages: list[str] = []
    external: list[str] = []
    for keyword, rest in _instructions(build.dockerfile.read_text()):
        if keyword == "ARG" and not stages:
            name, _, default = rest.partition("=")
            values[name.strip()] = build.args.get(name.strip(), default.strip().strip("\"'"))
        elif keyword == "FROM":
            words = [word for word in rest.split() if not word.startswith("--")]
            image = _substitute(words[0], values, where)
            if image not in stages:
                external.append(image)
            stages.append(words[2] if len(words) >= 3 and words[1].lower() == "as" else image)
        elif keyword in ("COPY", "RUN"):
            for source in re.findall(r"(?:--from=|[,\s]from=)([^\s,]+)", " " + rest):
                image = _substitute(source, values, where)
                if image not in stages and not image.isdigit():
                    external.append(image)
    return external


def _builds() -> list[Build]:
    return _sandbox_builds() + _compose_builds()


@pytest.mark.parametrize("build", _builds(), ids=lambda b: _shown(b.dockerfile))
def test_each_base_is_made_by_set_up_before_the_image_is_built(build: Build) -> None:
    bases = external_images(build)
    assert bases, f"{build.dockerfile}: no FROM"
    missing = [image for image in bases if image not in build.made_before]
    assert not missing, (
        f"{_shown(build.dockerfile)} ({build.builder}) builds on {missing}, which "
        f"set-up has not made by then (it makes {sorted(build.made_before)}): a fresh machine "
        "cannot build it. Build on one of those, or make set-up make the base."
    )


def test_every_dockerfile_of_the_repository_is_built_by_set_up_or_the_stack() -> None:
    """A Dockerfile no builder builds is not checked above, and could name anything."""
    built = {build.dockerfile for build in _builds()}
    orphans = sorted(str(path.relative_to(ROOT)) for path in _repository_dockerfiles() - built)
    assert not orphans, f"no set-up step or compose service builds {orphans}"


def test_every_compose_service_is_built_here_or_runs_an_image_built_here() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    built = {service.get("image") for service in compose["services"].values() if "build" in service}
    pulled = [
        name
        for name, service in compose["services"].items()
        if "build" not in service and service.get("image") not in built
    ]
    assert not pulled, f"compose services {pulled} run images nothing here builds"


def test_the_reader_sees_bases_behind_arguments_stages_and_copies(tmp_path: Path) -> None:
    """The parser itself, on the forms the repository's Dockerfiles use and a few they may."""
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(
        "# syntax comment\nARG BASE=debian:trixie-slim\nARG TOOLS\n"
        "FROM --platform=linux/amd64 ${BASE} AS build\nRUN true \\\n  && true\n"
        "FROM $TOOLS AS tools\nFROM build\nCOPY --from=build /a /a\n"
        "COPY --from=busybox:1 /bin/sh /sh\nCOPY --from=0 /b /b\n"
        "RUN --mount=type=bind,from=golang:1,target=/g true\n"
    )
    build = Build(dockerfile, {"TOOLS": "tools:1"}, frozenset(), "test")
    assert external_images(build) == ["debian:trixie-slim", "tools:1", "busybox:1", "golang:1"]
    with pytest.raises(AssertionError, match=r"\$TOOLS has no value"):
        external_images(Build(dockerfile, {}, frozenset(), "test"))
