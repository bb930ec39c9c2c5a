"""``judge complexity serve``: start an OpenAI-compatible server for a complexity model.

``--backend vllm`` replaces this process with ``vllm serve`` (a GPU server that batches
concurrent requests); ``--backend transformers`` runs the fallback server of
:mod:`complexity_model.served.server`, which batches concurrent requests too (``--max-batch``,
``--batch-wait-ms``) on a CPU or a GPU (``--device``); ``auto`` takes vLLM when it is
installed and a GPU is present. Both serve the model under ``--served-model-name`` (default:
``--model`` as given, vLLM's own default), which is the ``model`` a client must send.
Nothing is downloaded: ``HF_HUB_OFFLINE=1`` is set for vLLM and transformers loads with
``local_files_only``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from complexity_model.served._generate import TransformersGenerator

__all__ = ["BACKENDS", "choose_backend", "serve", "vllm_argv"]

BACKENDS = ("auto", "vllm", "transformers")


def vllm_installed() -> bool:
    return importlib.util.find_spec("vllm") is not None


def gpu_present() -> bool:
    """A CUDA device that torch can use (or, without torch, an NVIDIA driver)."""
    try:
        import torch  # the optional [model] extra: without it, ask the driver
    except ImportError:
        return shutil.which("nvidia-smi") is not None
    return bool(torch.cuda.is_available())


def choose_backend(requested: str) -> str:
    """``vllm`` or ``transformers``; ValueError for a name not in :data:`BACKENDS`."""
    if requested not in BACKENDS:
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {requested!r}")
    if requested != "auto":
        return requested
    return "vllm" if vllm_installed() and gpu_present() else "transformers"


def vllm_argv(model: str, host: str, port: int, served_name: str, extra: list[str]) -> list[str]:
    """The ``vllm serve`` command line; RuntimeError when vLLM is not installed."""
    beside = Path(sys.executable).with_name("vllm")
    executable = str(beside) if beside.exists() else shutil.which("vllm")
    if executable is None or not vllm_installed():
        raise RuntimeError(
            "vLLM is not installed in this environment: `pip install vllm` on a machine with "
            "a GPU, or use --backend transformers (CPU)"
        )
    return [
        executable,
        "serve",
        model,
        "--host",
        host,
        "--port",
        str(port),
        "--served-model-name",
        served_name,
        *extra,
    ]


@dataclass(frozen=True)
class TransformersOptions:
    device: str = "cpu"
    max_tokens_limit: int = 1024
    max_batch: int = 16
    batch_wait_ms: float = 0.0
    threads: int | None = None


def _run_transformers(
    model: str, host: str, port: int, served_name: str, options: TransformersOptions
) -> None:
    # FastAPI and uvicorn take about a second to import: only this server needs them, and the
    # `judge` CLI imports this module for every command.
    import torch
    import uvicorn

    from complexity_model.served.server import create_app

    if options.threads is not None:
        # torch takes every core by default; on a host shared with the sandboxes, fewer.
        torch.set_num_threads(options.threads)
    device = options.device
    if device == "auto":
        device = "cuda" if gpu_present() else "cpu"
    generator = TransformersGenerator(model, device=device)
    app = create_app(
        generator,
        served_name,
        max_tokens_limit=options.max_tokens_limit,
        max_batch=options.max_batch,
        batch_wait_ms=options.batch_wait_ms,
    )
    typer.echo(
        f"serving {model} as {served_name!r} on http://{host}:{port}/v1 (transformers, {device}, "
        f"batches of up to {options.max_batch}, {torch.get_num_threads()} threads)"
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")


def serve(
    ctx: typer.Context,
    model: Annotated[str, typer.Option("--model", help="local model directory")],
    backend: Annotated[str, typer.Option("--backend", help="auto, vllm or transformers")] = (
        "auto"
    ),
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8000,
    served_model_name: Annotated[
        str | None, typer.Option("--served-model-name", help="name clients ask for")
    ] = None,
    device: Annotated[str, typer.Option("--device", help="transformers: cpu, cuda or auto")] = (
        "cpu"
    ),
    max_tokens_limit: Annotated[
        int, typer.Option("--max-tokens-limit", help="transformers: largest max_tokens")
    ] = 1024,
    max_batch: Annotated[
        int, typer.Option("--max-batch", min=1, help="transformers: most rows decoded together")
    ] = 16,
    batch_wait_ms: Annotated[
        float,
        typer.Option(
            "--batch-wait-ms",
            min=0.0,
            help="transformers: how long an idle server gathers a burst before reading it",
        ),
    ] = 0.0,
    threads: Annotated[
        int | None, typer.Option("--threads", min=1, help="transformers: torch CPU threads")
    ] = None,
) -> None:
    """Serve a model on an OpenAI-compatible /v1/chat/completions endpoint.

    Arguments after the options go to `vllm serve` (for example `-- --max-model-len 8192`).
    """
    try:
        chosen = choose_backend(backend)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    name = served_model_name or model
    extra = list(ctx.args)
    if chosen == "vllm":
        try:
            argv = vllm_argv(model, host, port, name, extra)
        except RuntimeError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from error
        os.execve(argv[0], argv, {**os.environ, "HF_HUB_OFFLINE": "1"})
    if extra:
        raise typer.BadParameter(f"the transformers backend takes no extra arguments: {extra}")
    try:
        options = TransformersOptions(device, max_tokens_limit, max_batch, batch_wait_ms, threads)
        _run_transformers(model, host, port, name, options)
    except FileNotFoundError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
