"""Batched greedy decoding equals one-at-a-time greedy decoding, in the generator and through
the server: the same text, stop reasons and token counts, the same logprobs up to float
rounding, and so the same parsed complexity classes.

Two tiny models built on the spot: random weights (token soup that runs to ``max_tokens``) and
the same model trained on four rows (it writes their answers and stops, each after its own
number of tokens, so rows of one batch stop at different steps).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from complexity_model.served import ServedModelJudge, build_messages, parse_answer
from complexity_model.served._generate import Generation, GenerationRequest, TransformersGenerator
from complexity_model.served._greedy import Decoded, Prompt
from tests.complexity_model._tiny_model import LABELLED_ROWS, build_tiny_model, fit_tiny_model

NAME = "tiny"
# Programs of very different lengths, so most rows of a batch are padded.
PROGRAMS = [(str(row["code"]), str(row["language"])) for row in LABELLED_ROWS[:4]] + [
    ("x = 1\n" * 40, "python"),
    ("for i in range(n):\n    for j in range(i):\n        s += j\n" * 6, "python"),
    ("int main() { int n; std::cin >> n; return n; }", "cpp"),
    ("public class Main { public static void main(String[] a) { } }" * 3, "java"),
]


@pytest.fixture(scope="module")
def random_model(tmp_path_factory: pytest.TempPathFactory) -> TransformersGenerator:
    return TransformersGenerator(build_tiny_model(tmp_path_factory.mktemp("random") / "model"))


@pytest.fixture(scope="module")
def fitted_model(tmp_path_factory: pytest.TempPathFactory) -> TransformersGenerator:
    return TransformersGenerator(fit_tiny_model(tmp_path_factory.mktemp("fitted")))


def _requests(
    generator: TransformersGenerator, max_tokens: list[int], logprobs: list[bool]
) -> list[tuple[list[dict[str, str]], GenerationRequest]]:
    pairs = []
    for index, (code, language) in enumerate(PROGRAMS * 2):
        messages = build_messages(code, language)
        limit, wanted = max_tokens[index % len(max_tokens)], logprobs[index % len(logprobs)]
        pairs.append(
            (messages, GenerationRequest(generator.encode(messages, limit), limit, wanted))
        )
    return pairs


def _assert_same(alone: Generation, batched: Generation) -> None:
    assert batched.text == alone.text
    assert batched.finish_reason == alone.finish_reason
    assert (batched.prompt_tokens, batched.completion_tokens) == (
        alone.prompt_tokens,
        alone.completion_tokens,
    )
    assert parse_answer(batched.text) == parse_answer(alone.text)
    if alone.token_logprobs is None:
        assert batched.token_logprobs is None
        return
    assert batched.token_logprobs is not None
    assert [token for token, _ in batched.token_logprobs] == [
        token for token, _ in alone.token_logprobs
    ]
    for (_, value), (_, expected) in zip(batched.token_logprobs, alone.token_logprobs, strict=True):
        assert value == pytest.approx(expected, abs=1e-4)


def _compare(
    generator: TransformersGenerator, max_tokens: list[int], logprobs: list[bool]
) -> list[Generation]:
    pairs = _requests(generator, max_tokens, logprobs)
    batched = generator.generate_batch([request for _, request in pairs])
    alone = [
        generator.generate(messages, request.max_tokens, request.logprobs)
        for messages, request in pairs
    ]
    assert len(batched) == len(alone) == 16
    for one, many in zip(alone, batched, strict=True):
        _assert_same(one, many)
    return alone


@pytest.mark.parametrize("prefill_rows", [True, False], ids=["rows", "padded"])
def test_a_batch_of_random_model_rows_equals_each_row_alone(
    random_model: TransformersGenerator, prefill_rows: bool
) -> None:
    # Prompts read one by one (the CPU default) or as one padded batch (the GPU default).
    random_model.prefill_rows = prefill_rows
    try:
        alone = _compare(random_model, max_tokens=[3, 17, 8, 24, 1], logprobs=[True, False, True])
        assert {generation.finish_reason for generation in alone} == {"length"}
        assert sorted({generation.completion_tokens for generation in alone}) == [1, 3, 8, 17, 24]
        assert len({generation.prompt_tokens for generation in alone}) >= 6
    finally:
        random_model.prefill_rows = True


def test_rows_that_stop_at_different_steps_equal_each_row_alone(
    fitted_model: TransformersGenerator,
) -> None:
    # 40 tokens is room for every answer; 6 cuts some rows short in the same batch.
    alone = _compare(fitted_model, max_tokens=[40, 40, 40, 40, 6], logprobs=[True, True, False])
    stopped = [generation for generation in alone if generation.finish_reason == "stop"]
    assert len({generation.completion_tokens for generation in stopped}) >= 2
    assert any(generation.finish_reason == "length" for generation in alone)
    classes = [parse_answer(generation.text).predicted for generation in alone[:4]]
    assert classes == ["O(1)", "O(n)", "O(n log n)", "O(n^2)"]


def _continuous(
    generator: TransformersGenerator, max_tokens: list[int], logprobs: list[bool]
) -> list[Generation]:
    """Requests admitted into a batch in three waves between decode steps, each wave mixed in
    prompt length; each row's generation must equal the request's alone."""
    pairs = _requests(generator, max_tokens, logprobs)
    batch = generator.new_batch()
    waves = {0: pairs[:5], 2: pairs[5:11], 5: pairs[11:]}
    finished: dict[int, Decoded] = {}
    step = 0
    while step in waves or step < max(waves) or len(batch):
        wave = waves.get(step, [])
        start = sum(len(waves[s]) for s in waves if s < step)
        prompts = [
            Prompt(request.prompt, request.max_tokens, request.logprobs, start + offset)
            for offset, (_, request) in enumerate(wave)
        ]
        finished.update(batch.admit(prompts))
        if step == 5:
            assert len(batch) > len(wave)  # the late wave joined rows still decoding
        finished.update(batch.step())
        step += 1
    assert sorted(finished) == list(range(len(pairs)))
    # The later waves read only what follows the system prompt the first wave taught.
    assert len(generator.prefix.ids) >= 16 and generator.prefix.hits >= 6
    alone = []
    for index, (messages, request) in enumerate(pairs):
        one = generator.generate(messages, request.max_tokens, request.logprobs)
        _assert_same(one, generator.finish(request, finished[index]))
        alone.append(one)
    return alone


def test_random_model_rows_admitted_mid_decode_equal_each_row_alone(
    random_model: TransformersGenerator,
) -> None:
    alone = _continuous(random_model, max_tokens=[9, 17, 4, 24, 1, 12], logprobs=[True, False])
    assert sorted({generation.completion_tokens for generation in alone}) == [1, 4, 9, 12, 17, 24]


def test_fitted_model_rows_admitted_mid_decode_equal_each_row_alone(
    fitted_model: TransformersGenerator,
) -> None:
    alone = _continuous(fitted_model, max_tokens=[40, 40, 40, 7], logprobs=[True, False, True])
    stopped = [generation for generation in alone if generation.finish_reason == "stop"]
    assert len({generation.completion_tokens for generation in stopped}) >= 2
    assert any(generation.finish_reason == "length" for generation in alone)


def test_an_empty_batch_is_nothing(random_model: TransformersGenerator) -> None:
    assert random_model.generate_batch([]) == []


@pytest.fixture(scope="module")
def batched_server(fitted_model: TransformersGenerator) -> Iterator[tuple[str, object]]:
    import uvicorn

    from complexity_model.served.server import create_app

    # A wide window: on a loaded host the 16 client threads may take a while to all send.
    app = create_app(fitted_model, NAME, max_batch=16, batch_wait_ms=50)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", app.state.scheduler
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_sixteen_concurrent_estimates_are_batched_and_equal_one_at_a_time(
    fitted_model: TransformersGenerator, batched_server: tuple[str, object]
) -> None:
    url, _ = batched_server
    items = PROGRAMS * 2
    expected = [
        fitted_model.generate(build_messages(code, language), 64, True).text
        for code, language in items
    ]
    with ServedModelJudge(url, NAME, concurrency=16, max_tokens=64) as judge:
        estimates = judge.estimate_many(items)
    assert [estimate.evidence["raw"] for estimate in estimates] == expected
    assert [estimate.predicted for estimate in estimates] == [
        parse_answer(text).predicted for text in expected
    ]
    assert [estimate.predicted for estimate in estimates[:4]] == [
        "O(1)",
        "O(n)",
        "O(n log n)",
        "O(n^2)",
    ]
    stats = httpx.get(f"{url}/stats", timeout=10).json()
    assert stats["requests"] == 16 and stats["max_batch"] == 16
    # One at a time, every token after a request's first (read with its prompt) is a step.
    alone_steps = sum(
        fitted_model.generate(build_messages(code, language), 64, True).completion_tokens - 1
        for code, language in items
    )
    assert stats["largest_batch"] >= 4 and stats["batches"] * 3 <= alone_steps
    assert stats["shared_prefix_tokens"] >= 16 and stats["prefix_hits"] >= 8
