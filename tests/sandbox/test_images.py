"""``judge images build`` without Docker: the names it builds and the arguments it passes."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge_service.cli import app
from judge_service.sandbox import images
from judge_service.sandbox._build_context import staged_context
from judge_service.sandbox.languages import LANGUAGES
from judge_service.settings import get_settings


@pytest.fixture
def docker_builds(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ``docker build`` command lines a build runs, none of them run: no image exists."""
    builds: list[list[str]] = []
    monkeypatch.setattr(images, "ensure_base_image", lambda log: None)
    monkeypatch.setattr(images, "_image_label", lambda ref, label: None)
    monkeypatch.setattr(images, "_run_streaming", lambda cmd, log: builds.append(list(cmd)))
    return builds


def _tag_and_args(cmd: Sequence[str]) -> tuple[str, dict[str, str]]:
    args = dict(cmd[i + 1].split("=", 1) for i, word in enumerate(cmd) if word == "--build-arg")
    return cmd[cmd.index("-t") + 1], args


@pytest.fixture
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_images_are_named_with_the_prefix_and_build_on_its_base(
    docker_builds: list[list[str]],
) -> None:
    tags = images.build_images(["python", "cpp"], prefix="custom-judge-", log=lambda _: None)
    assert tags == ["custom-judge-python", "custom-judge-cpp"]
    built = [_tag_and_args(cmd) for cmd in docker_builds]
    assert [tag for tag, _ in built] == ["custom-judge-base", *tags]
    assert built[0][1] == {}
    for _, args in built[1:]:
        assert args["SANDBOX_BASE"] == "custom-judge-base"


def test_the_cli_builds_the_names_the_pool_reads_from_the_settings(
    docker_builds: list[list[str]], fresh_settings: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_IMAGE_PREFIX", "cli-prefix-")
    result = CliRunner().invoke(app, ["images", "build", "--lang", "go"])
    assert result.exit_code == 0, result.output
    assert [_tag_and_args(cmd)[0] for cmd in docker_builds] == ["cli-prefix-base", "cli-prefix-go"]
    assert get_settings().image_prefix + "go" == "cli-prefix-go"


@pytest.mark.parametrize(("language", "arg"), [("cpp", "PCH_FLAGS"), ("cpp17", "PCH_FLAGS_CPP17")])
def test_the_precompiled_header_is_built_with_the_judges_compile_options(
    language: str, arg: str
) -> None:
    """GCC ignores a .gch built with other options, so the image takes the judge's own: the
    compile command less its output file, source and libraries."""
    argv = LANGUAGES[language].compile_command("")
    flags = images.build_args("cpp", "p-")[arg].split()
    assert flags == [word for word in argv[1 : argv.index("-o")] if word.startswith("-")]
    assert "-lm" in argv and "-lm" not in flags
    assert images.pch_flags(["g++", "-o", "-weird-name", "-O3", "x.cpp", "-lgmp"]) == ["-O3"]
    # The Dockerfile's default (for a plain `docker build`) says the same.
    dockerfile = (images.images_dir() / "cpp" / "Dockerfile").read_text()
    default = re.search(rf'^ARG {arg}="([^"]*)"$', dockerfile, re.MULTILINE)
    assert default is not None and default[1].split() == flags


def test_the_preludes_built_are_the_ones_the_compile_command_names() -> None:
    """Each of cpp's preludes reaches the image's build as its headers, comma-separated; the
    Dockerfile's default (a plain `docker build`) is the same list."""
    built = images.build_args("cpp", "p-")["PCH_PRELUDES"].split()
    assert built == [",".join(prelude) for prelude in LANGUAGES["cpp"].preludes]
    assert "vector,string" in built and "iostream" in built
    dockerfile = (images.images_dir() / "cpp" / "Dockerfile").read_text()
    default = re.search(r'^ARG PCH_PRELUDES="([^"]*)"$', dockerfile, re.MULTILINE)
    assert default is not None and default[1].split() == built


def test_other_compile_options_rebuild_the_image() -> None:
    context = images.images_dir() / "cpp"
    args = images.build_args("cpp", "p-")
    for arg in ("PCH_FLAGS", "PCH_FLAGS_CPP17", "PCH_PRELUDES"):
        changed = {**args, arg: "-O2 -std=c++20 -pipe"}
        assert images._context_hash(context, "base", args) != images._context_hash(
            context, "base", changed
        )


def test_language_variants_build_and_run_their_languages_image(
    docker_builds: list[list[str]],
) -> None:
    """cpp17/cpp23 are g++ at other standards and rust2024 rustc at another edition: one image
    each, built once however many of its variants are asked for."""
    tags = images.build_images(
        ["cpp17", "cpp", "cpp23", "rust2024", "pypy"], prefix="v-", log=lambda _: None
    )
    assert tags == ["v-cpp", "v-rust", "v-pypy"]
    assert [_tag_and_args(cmd)[0] for cmd in docker_builds] == ["v-base", *tags]
    assert images.image_tag("cpp23", "v-") == "v-cpp"
    assert images.image_tag("rust2024", "v-") == "v-rust"
    assert set(images.IMAGES) == {path.name for path in images.images_dir().iterdir()} - {"base"}
    with pytest.raises(ValueError, match="unknown language"):
        images.build_images(["cobol"], prefix="v-", log=lambda _: None)


def test_the_variants_differ_from_the_default_only_in_their_standard() -> None:
    default = LANGUAGES["cpp"].compile_command("")
    assert "-std=gnu++20" in default
    for variant, std in (("cpp17", "-std=gnu++17"), ("cpp23", "-std=gnu++23")):
        argv = LANGUAGES[variant].compile_command("")
        assert [word if word != std else "-std=gnu++20" for word in argv] == default
    for variant, edition in (("rust2024", "2024"), ("rust", "2021")):
        argv = LANGUAGES[variant].compile_command("")
        assert argv[argv.index("--edition") + 1] == edition


def test_linker_options_stay_out_of_the_precompiled_headers_flags() -> None:
    argv = LANGUAGES["cpp"].compile_command("")
    assert "-Wl,--as-needed" in argv and "-lcrypto" in argv and "-fuse-ld=mold" in argv
    flags = images.pch_flags(argv)
    assert not [flag for flag in flags if flag.startswith(("-l", "-Wl,", "-fuse-ld="))]


def test_the_base_is_debootstrapped_from_the_mirror_a_bookworm_host_uses(tmp_path: Path) -> None:
    """The host may run an older release than the images; its mirror serves trixie too."""
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\n"
    )
    assert images.find_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list").write_text("deb http://other.example/debian trixie main\n")
    assert images.find_mirror(tmp_path) == "http://other.example/debian"
    rootfs = tmp_path / "rootfs"
    (rootfs / "etc/apt").mkdir(parents=True)
    (rootfs / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True)
    images._slim_rootfs(rootfs, "http://m/debian")
    assert (rootfs / "etc/apt/sources.list").read_text() == "deb http://m/debian trixie main\n"
    assert images.BASE_IMAGE == "debian:trixie-slim"


def test_a_context_that_asks_for_the_hosts_ca_bundle_gets_a_copy_with_it(tmp_path: Path) -> None:
    """npm's registry may be reached through a TLS-intercepting proxy only the host trusts:
    the JavaScript image's download stage gets the host's bundle; other contexts are built
    as they are."""
    bundle = tmp_path / "bundle.crt"
    bundle.write_text("-----BEGIN CERTIFICATE-----\nhost\n")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "Dockerfile").write_text("FROM x\n")
    with staged_context(plain, bundle) as staged:
        assert staged == plain
    asking = tmp_path / "asking"
    asking.mkdir()
    (asking / "Dockerfile").write_text("FROM x\nCOPY host-ca.crt /tmp/\n")
    (asking / "harness.js").write_text("//")
    with staged_context(asking, bundle) as staged:
        assert staged != asking
        assert (staged / "host-ca.crt").read_text() == bundle.read_text()
        assert (staged / "harness.js").read_text() == "//"
    assert not staged.exists() and not (asking / "host-ca.crt").exists()
    with staged_context(asking, tmp_path / "missing.crt") as staged:
        assert (staged / "host-ca.crt").read_bytes() == b""
    javascript = images.images_dir() / "javascript"
    assert "COPY host-ca.crt" in (javascript / "Dockerfile").read_text()


def test_a_language_on_another_languages_image_builds_that_one_first(
    docker_builds: list[list[str]],
) -> None:
    """TypeScript's image is JavaScript's plus esbuild: asking for it builds both, in order,
    and a change to JavaScript's image rebuilds TypeScript's (its hash is the parent's too)."""
    tags = images.build_images(["typescript", "ruby"], prefix="t-", log=lambda _: None)
    assert tags == ["t-javascript", "t-typescript", "t-ruby"]
    built = dict(_tag_and_args(cmd) for cmd in docker_builds)
    assert built["t-typescript"]["SANDBOX_BASE"] == "t-javascript"
    assert built["t-javascript"]["SANDBOX_BASE"] == "t-base"
    assert built["t-ruby"]["SANDBOX_BASE"] == "t-base"
    context = images.images_dir() / "typescript"
    args = images.build_args("typescript", "t-")
    assert images._context_hash(context, "js-1", args) != images._context_hash(
        context, "js-2", args
    )
