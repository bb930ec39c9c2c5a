"""Fine-tune an instruct causal LM to classify time complexity (``judge complexity train``).

Input: JSONL rows with ``code``, ``language`` and ``complexity`` (a ladder class; the fields
of ``codecomplex_dev.jsonl``). Each row becomes the serving prompt followed by the JSON
answer, with the loss on the answer tokens alone (:mod:`complexity_model.served._features`),
so the trained model answers :class:`~complexity_model.served.ServedModelJudge` directly.
``--lora`` trains LoRA adapters through peft and merges them into the weights before saving,
so the output directory is a plain model that ``judge complexity serve`` (or ``vllm serve``)
loads. The base model is a local path: nothing is downloaded.

Don't train on the rows you evaluate on: ``codecomplex_dev.jsonl`` is the evaluation half.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from complexity_model.served._features import collate, encode_example, load_examples
from complexity_model.served._generate import load_local

__all__ = ["TrainConfig", "TrainSummary", "train", "train_command"]


@dataclass(frozen=True)
class TrainConfig:
    data: Path
    model: str
    output: Path
    epochs: float = 1.0
    max_steps: int | None = None  # overrides epochs when set
    batch_size: int = 4
    grad_accum: int = 1
    learning_rate: float | None = None  # default: 2e-4 with LoRA, 2e-5 without
    warmup_ratio: float = 0.03
    max_length: int = 2048
    lora: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    gradient_checkpointing: bool = False
    device: str = "auto"
    dtype: str = "auto"  # auto: bfloat16 on a GPU that has it, float32 otherwise
    seed: int = 0
    limit: int | None = None


@dataclass
class TrainSummary:
    output: str
    examples: int
    skipped: int
    steps: int
    seconds: float
    losses: list[float] = field(default_factory=list)


def _device_and_dtype(config: TrainConfig) -> tuple[str, Any]:
    import torch  # the optional [model] extra: only training imports it

    device = config.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    names = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if config.dtype != "auto":
        if config.dtype not in names:
            raise ValueError(f"dtype must be auto or one of {', '.join(names)}")
        return device, names[config.dtype]
    bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
    return device, torch.bfloat16 if bf16 else torch.float32


def _with_lora(model: Any, config: TrainConfig) -> Any:
    from peft import LoraConfig, get_peft_model  # the optional [model] extra

    lora = LoraConfig(
        task_type="CAUSAL_LM",
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules="all-linear",
    )
    return get_peft_model(model, lora)


def _schedule(total: int, warmup: int) -> Callable[[int], float]:
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    return factor


def train(config: TrainConfig, log: Callable[[str], None] = print) -> TrainSummary:
    """Train, save model and tokenizer to ``config.output``, and say what was done."""
    import torch  # the optional [model] extra: only training imports it

    started = time.perf_counter()
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    device, dtype = _device_and_dtype(config)
    model, tokenizer = load_local(config.model, dtype=dtype)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    examples, skipped = load_examples(config.data, config.limit)
    features = [encode_example(tokenizer, example, config.max_length) for example in examples]
    kept = [item for item in features if item is not None]
    skipped += len(features) - len(kept)
    if not kept:
        raise ValueError(f"no usable examples in {config.data}")
    if config.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()
    if config.lora:
        model = _with_lora(model, config)
    model.to(device)
    model.train()
    batches_per_epoch = math.ceil(len(kept) / config.batch_size)
    total = config.max_steps or max(
        1, math.ceil(config.epochs * batches_per_epoch / config.grad_accum)
    )
    rate = config.learning_rate or (2e-4 if config.lora else 2e-5)
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=rate, weight_decay=0.0)
    warmup = max(1, int(config.warmup_ratio * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(total, warmup))
    log(f"training on {len(kept)} examples ({skipped} skipped), {total} steps, {device}")
    order: list[int] = []
    summary = TrainSummary(str(config.output), len(kept), skipped, total, 0.0)
    for step in range(total):
        step_loss = 0.0
        for _ in range(config.grad_accum):
            if len(order) < config.batch_size:
                order += random.sample(range(len(kept)), len(kept))
            batch = [kept[index] for index in order[: config.batch_size]]
            del order[: config.batch_size]
            tensors = {
                key: value.to(device)
                for key, value in collate(batch, tokenizer.pad_token_id).items()
            }
            loss = model(**tensors).loss / config.grad_accum
            loss.backward()
            step_loss += float(loss.detach())
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        summary.losses.append(round(step_loss, 5))
        if step % 10 == 0 or step == total - 1:
            log(f"step {step + 1}/{total}: loss {step_loss:.4f}")
    if config.lora:
        model = model.merge_and_unload()
    model.eval()
    config.output.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(config.output))
    tokenizer.save_pretrained(str(config.output))
    summary.seconds = round(time.perf_counter() - started, 2)
    record = {"config": {k: str(v) for k, v in asdict(config).items()}, **asdict(summary)}
    (config.output / "complexity_training.json").write_text(json.dumps(record, indent=2))
    log(f"saved to {config.output} in {summary.seconds} s")
    return summary


def train_command(
    data: Annotated[Path, typer.Option("--data", help="JSONL: code, language, complexity")],
    model: Annotated[str, typer.Option("--model", help="local base model directory")],
    output: Annotated[Path, typer.Option("--output", help="where to save the model")],
    epochs: Annotated[float, typer.Option("--epochs")] = 1.0,
    max_steps: Annotated[int | None, typer.Option("--max-steps", help="overrides --epochs")] = (
        None
    ),
    batch_size: Annotated[int, typer.Option("--batch-size")] = 4,
    grad_accum: Annotated[int, typer.Option("--grad-accum")] = 1,
    learning_rate: Annotated[float | None, typer.Option("--lr")] = None,
    max_length: Annotated[int, typer.Option("--max-length", help="tokens per example")] = 2048,
    lora: Annotated[bool, typer.Option("--lora/--full", help="LoRA adapters (peft)")] = False,
    lora_r: Annotated[int, typer.Option("--lora-r")] = 16,
    lora_alpha: Annotated[int, typer.Option("--lora-alpha")] = 32,
    gradient_checkpointing: Annotated[bool, typer.Option("--gradient-checkpointing")] = False,
    device: Annotated[str, typer.Option("--device", help="auto, cpu or cuda")] = "auto",
    dtype: Annotated[str, typer.Option("--dtype", help="auto, float32, bfloat16")] = "auto",
    seed: Annotated[int, typer.Option("--seed")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N rows")] = None,
) -> None:
    """Fine-tune a causal LM to answer the served judge's prompt with the labelled class."""
    if not data.exists():
        raise typer.BadParameter(f"no data file at {data}")
    config = TrainConfig(
        data=data,
        model=model,
        output=output,
        epochs=epochs,
        max_steps=max_steps,
        batch_size=batch_size,
        grad_accum=grad_accum,
        learning_rate=learning_rate,
        max_length=max_length,
        lora=lora,
        lora_r=lora_r,
        lora_alpha=lora_alpha,
        gradient_checkpointing=gradient_checkpointing,
        device=device,
        dtype=dtype,
        seed=seed,
        limit=limit,
    )
    try:
        train(config, log=typer.echo)
    except (FileNotFoundError, ValueError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
