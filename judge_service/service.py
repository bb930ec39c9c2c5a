"""JudgeService: a batch in, one result per item out, in order; nothing is lost.

Per item: parse it, resolve its problem, extract the code from a raw completion, build and
validate the engine job, look up the result cache, and only then send what is left to the
dispatcher. A bad item fails alone (status ``error``); an infrastructure failure of an item is
``system_error`` with no reward (a trainer should skip it, never learn from a fake 0).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from judge_service._inline_problems import UNKNOWN_HASH, InlineProblems, problem_hash
from judge_service._store_retry import ride_out
from judge_service.client_json import is_text
from judge_service.complexity import time_reward
from judge_service.dispatch import Dispatcher
from judge_service.exceptions import InvalidJobError
from judge_service.metrics import Metrics
from judge_service.reward import compute_reward, extract_code
from judge_service.sandbox.models import Job, JobResult, Limits
from judge_service.sandbox.validation import validate_job
from judge_service.schemas import (
    ComplexityMode,
    ComplexityOut,
    JudgeOptions,
    Problem,
    SubmissionIn,
    SubmissionResult,
    TestOut,
)
from judge_service.settings import Settings
from judge_service.store.repository import Store

Progress = Callable[[list[tuple[int, SubmissionResult]]], Awaitable[None]]


@dataclass
class _Item:
    position: int
    client_id: str | None
    language: str = ""
    problem: Problem | None = None
    problem_ref: tuple[str, int] = ("", 0)
    code_hash: str = ""
    job: Job | None = None
    cache_key: str = ""
    result: SubmissionResult | None = None


class JudgeService:
    def __init__(
        self, settings: Settings, store: Store, dispatcher: Dispatcher, metrics: Metrics
    ) -> None:
        self.settings = settings
        self.store = store
        self.dispatcher = dispatcher
        self.metrics = metrics
        self.inline_problems = InlineProblems(settings.inline_problems_mb << 20)

    async def judge(
        self,
        raw_items: list[Any],
        options: JudgeOptions,
        job_id: str | None = None,
        on_progress: Progress | None = None,
    ) -> list[SubmissionResult]:
        started = time.monotonic()
        # A queued job waits out a database outage; a synchronous caller hears of it (503).
        store_outage_s = self.settings.store_outage_s if job_id is not None else 0.0
        items = await ride_out(store_outage_s, self._prepare, raw_items, options)
        decided = [(item.position, item.result) for item in items if item.result is not None]
        self.metrics.cache_hits.inc(sum(1 for _, r in decided if r.cached))
        # A queued job stores each chunk as it lands (its progress); a synchronous batch stores
        # everything in one write at the end: per-chunk transactions cost more than judging.
        streaming = job_id is not None or on_progress is not None
        unsaved: list[_Item] = []
        if streaming:
            await self._save(job_id, [items[p] for p, _ in decided], on_progress)
        else:
            unsaved.extend(items[p] for p, _ in decided)
        # Repeats within the batch (RL rollouts often are) run once; the copies share the answer.
        copies: dict[str, list[_Item]] = {}
        todo: list[_Item] = []
        for item in items:
            if item.result is None:
                if item.cache_key not in copies:
                    todo.append(item)
                copies.setdefault(item.cache_key, []).append(item)
        self.metrics.sandbox_jobs.inc(len(todo))

        async def chunk_done(offset: int, answers: list[dict[str, Any]]) -> None:
            finished = []
            for first, answer in zip(todo[offset : offset + len(answers)], answers, strict=True):
                for item in copies[first.cache_key]:
                    item.result = self._finish(item, answer, options)
                    finished.append(item)
            if streaming:
                await self._save(job_id, finished, on_progress)
            else:
                unsaved.extend(finished)

        payloads = [self._payload(item, options) for item in todo]
        if payloads:
            # A queued job outlives a broker outage; a synchronous caller hears of it (503).
            outage_s = self.settings.broker_outage_s if job_id is not None else 0.0
            await self.dispatcher.run(payloads, chunk_done, outage_s=outage_s)
        await self._save(job_id, unsaved, on_progress)
        self.metrics.batch_latency.observe(time.monotonic() - started)
        self.metrics.batch_size.observe(len(raw_items))
        results = []
        for item in items:
            assert item.result is not None, "every item is answered"
            self._count(item)
            results.append(item.result)
        return bounded_output(results, self.settings.max_reply_output_bytes)

    async def run_jobs(self, jobs: list[Job]) -> list[JobResult]:
        """Run engine jobs as given, through the same dispatcher and sandboxes as ``judge``.

        For callers that need the engine's own result (each test's output and exit status,
        fetched files) rather than a judged submission: the compatibility endpoints. Nothing is
        stored or cached and no reward is computed. Every job is validated first and
        ``InvalidJobError`` is raised before anything runs; an infrastructure failure of a job
        comes back as its ``JobResult`` with verdict SE and ``system_error`` set.
        """
        for job in jobs:
            validate_job(job, self.settings)
        if not jobs:
            return []
        self.metrics.sandbox_jobs.inc(len(jobs))
        payloads = [{"job": job.model_dump(mode="json"), "complexity": None} for job in jobs]
        answers = await self.dispatcher.run(payloads)
        results = []
        for job, answer in zip(jobs, answers, strict=True):
            if "system_error" in answer:
                self.metrics.system_errors.inc()
                message = str(answer["system_error"])
                results.append(JobResult.system_failure(len(job.tests), message))
            else:
                results.append(JobResult.model_validate(answer["result"]))
        return results

    # ---- preparing ---------------------------------------------------------------------------
    def _prepare(self, raw_items: list[Any], options: JudgeOptions) -> list[_Item]:
        wanted = {
            raw["problem_id"]
            for raw in raw_items
            if isinstance(raw, dict) and is_text(raw.get("problem_id"))
        }
        found = self.store.get_problems(sorted(wanted)) if wanted else {}
        problems: dict[str, tuple[Problem, int] | None] = {
            problem_id: found.get(problem_id) for problem_id in wanted
        }
        items = [
            self._prepare_one(position, raw, options, problems)
            for position, raw in enumerate(raw_items)
        ]
        keyed: dict[str, list[_Item]] = {}
        for item in items:
            if item.result is None and item.cache_key:
                keyed.setdefault(item.cache_key, []).append(item)
        for key, cached in self.store.get_cached(list(keyed)).items():
            for item in keyed[key]:
                item.result = SubmissionResult.model_validate(
                    {**cached, "id": item.client_id, "cached": True}
                )
        return items

    def _prepare_one(
        self,
        position: int,
        raw: Any,
        options: JudgeOptions,
        problems: dict[str, tuple[Problem, int] | None],
    ) -> _Item:
        client_id = raw.get("id") if isinstance(raw, dict) else None
        item = _Item(position, client_id if is_text(client_id) else None)
        inline = raw.get("problem") if isinstance(raw, dict) else None
        named = problem_hash(inline) if isinstance(inline, dict) else None
        if named is not None and "problem_hash" not in raw and self.inline_problems.get(named[0]):
            # A problem seen before is not validated and hashed again: only its name is kept.
            raw = {key: value for key, value in raw.items() if key != "problem"}
            raw["problem_hash"] = named[0]
            named = None
        try:
            submission = SubmissionIn.model_validate(raw)
        except ValidationError as error:
            return self._reject(item, _describe(error))
        item.language = submission.language
        sources = (submission.problem_id, submission.problem, submission.problem_hash)
        if sum(source is not None for source in sources) != 1:
            return self._reject(
                item, "give exactly one of 'problem_id', 'problem' and 'problem_hash'"
            )
        if (submission.code is None) == (submission.completion is None):
            return self._reject(item, "give exactly one of 'code' and 'completion'")
        if submission.problem is not None:
            item.problem = submission.problem
            content = submission.problem.content_hash()
            item.problem_ref = ("inline:" + content, 0)
            if named is not None:
                self.inline_problems.put(named[0], submission.problem, content, named[1])
        elif submission.problem_hash is not None:
            remembered = self.inline_problems.get(submission.problem_hash)
            if remembered is None:
                return self._reject(
                    item,
                    f"{UNKNOWN_HASH} {submission.problem_hash}: send the problem inline (this "
                    "API process keeps recently sent inline problems, up to inline_problems_mb)",
                )
            item.problem, content = remembered
            item.problem_ref = ("inline:" + content, 0)
        else:
            problem_id = submission.problem_id or ""
            if problem_id not in problems:
                problems[problem_id] = self.store.get_problem(problem_id)
            found = problems[problem_id]
            if found is None:
                return self._reject(item, f"unknown problem {problem_id!r}")
            item.problem, version = found
            item.problem_ref = (problem_id, version)
        code = submission.code
        if code is None:
            size, cap = len(submission.completion or ""), self.settings.max_completion_chars
            if size > cap:
                return self._reject(item, f"completion: {size} characters; the limit is {cap}")
            code = extract_code(
                submission.completion or "", submission.language, self.settings.reward
            )
            if code is None:
                reward = compute_reward(
                    extracted=False, pass_rate=0.0, time_reward=None, config=self.settings.reward
                )
                item.result = SubmissionResult(
                    id=item.client_id,
                    status="ok",
                    error="no code could be extracted",
                    pass_rate=0.0,
                    reward=reward,
                )
                return item
        try:
            item.job = self._job(item.problem, submission.language, code, options)
        except (InvalidJobError, ValidationError, ValueError) as error:
            return self._reject(item, _describe(error))
        tag = f"{submission.language}|stop={options.stop_on_first_failure}|cx={options.complexity}"
        item.cache_key = Store.cache_key(item.problem_ref[0], item.problem_ref[1], tag, code)
        item.code_hash = Store.code_hash(code)
        return item

    def _job(self, problem: Problem, language: str, code: str, options: JudgeOptions) -> Job:
        job = Job(
            language=language,
            code=code,
            tests=problem.test_cases(),
            mode=problem.mode,
            entry_point=problem.entry_point,
            checker=problem.checker,
            # report_bytes=0: a submission's result has no test output, so none leaves the
            # sandbox.
            limits=Limits(
                time_limit_ms=problem.time_limit_ms,
                memory_limit_mb=problem.memory_limit_mb,
                report_bytes=0,
            ),
            stop_on_first_failure=options.stop_on_first_failure,
            prompt=problem.prompt,
        )
        spec = validate_job(job, self.settings)
        if spec.suite_failure_exit is not None and not self.settings.judge_test_suites:
            raise InvalidJobError(
                f"{language} is a test-suite language: its verdict is the exit status of the "
                "process that runs the submission, which can exit 0 before any test runs; it is "
                "not judged on this service. Use stdin, function or assert mode in the "
                "language itself, or set JUDGE_JUDGE_TEST_SUITES=1 where no policy is trained "
                "on the verdicts"
            )
        return job

    @staticmethod
    def _reject(item: _Item, message: str) -> _Item:
        item.result = SubmissionResult(id=item.client_id, status="error", error=message)
        return item

    def _payload(self, item: _Item, options: JudgeOptions) -> dict[str, Any]:
        assert item.job is not None and item.problem is not None
        complexity = None
        if options.complexity is not ComplexityMode.OFF:
            complexity = {
                "mode": options.complexity.value,
                "problem": item.problem.model_dump(mode="json"),
            }
        return {"job": item.job.model_dump(mode="json"), "complexity": complexity}

    # ---- finishing ---------------------------------------------------------------------------
    def _finish(
        self, item: _Item, answer: dict[str, Any], options: JudgeOptions
    ) -> SubmissionResult:
        if "system_error" in answer:
            return SubmissionResult(
                id=item.client_id, status="system_error", error=str(answer["system_error"])
            )
        result = JobResult.model_validate(answer["result"])
        complexity = (
            ComplexityOut.model_validate(answer["complexity"]) if answer.get("complexity") else None
        )
        if (
            options.complexity is ComplexityMode.REQUIRED
            and result.pass_rate == 1.0
            and (complexity is None or complexity.predicted == "unknown")
        ):
            method = complexity.method if complexity else "none"
            return SubmissionResult(
                id=item.client_id,
                status="error",
                error=f"complexity is required but could not be determined (method: {method})",
            )
        time_score = (
            time_reward(
                complexity.predicted, complexity.reference, decay=self.settings.reward.time_decay
            )
            if complexity and not complexity.time_reward_abstained
            else None
        )
        reward = compute_reward(
            extracted=True,
            pass_rate=result.pass_rate,
            time_reward=time_score,
            config=self.settings.reward,
        )
        return SubmissionResult(
            id=item.client_id,
            status="ok",
            verdict=result.verdict,
            pass_rate=result.pass_rate,
            tests=[
                TestOut(verdict=t.verdict, time_ms=t.time_ms, memory_kb=t.memory_kb, limit=t.limit)
                for t in result.tests
            ],
            compile_output=(
                result.compile.output if result.compile and not result.compile.ok else None
            ),
            reward=reward,
            complexity=complexity,
            load_dependent=result.load_dependent,
        )

    async def _save(
        self, job_id: str | None, items: list[_Item], on_progress: Progress | None
    ) -> None:
        if not items:
            return
        rows = []
        cache: dict[str, dict[str, Any]] = {}
        for item in items:
            assert item.result is not None
            dump = item.result.model_dump(mode="json")
            rows.append(
                {
                    "position": item.position,
                    "client_id": item.client_id,
                    "problem_id": item.problem_ref[0],
                    "problem_version": item.problem_ref[1],
                    "language": item.language,
                    "code_hash": item.code_hash,
                    "result": dump,
                }
            )
            if (
                item.result.status == "ok"
                and item.cache_key
                and not item.result.cached
                and not item.result.load_dependent
            ):
                cache[item.cache_key] = {k: v for k, v in dump.items() if k not in ("id", "cached")}
        outage_s = self.settings.store_outage_s if job_id is not None else 0.0
        await ride_out(outage_s, self._write, job_id, rows, cache)
        if on_progress is not None:
            await on_progress(
                [(item.position, item.result) for item in items if item.result is not None]
            )

    def _write(
        self, job_id: str | None, rows: list[dict[str, Any]], cache: dict[str, dict[str, Any]]
    ) -> None:
        self.store.add_results(job_id, rows)
        if cache:
            self.store.put_cached(cache)

    def _count(self, item: _Item) -> None:
        result = item.result
        assert result is not None
        language = item.language or "unknown"
        if result.status == "system_error":
            self.metrics.system_errors.inc()
        verdict = result.verdict.value if result.verdict else result.status
        self.metrics.submissions.labels(verdict=verdict, language=language).inc()
        if not result.cached:
            for test in result.tests:
                self.metrics.tests.labels(verdict=test.verdict.value, language=language).inc()


def bounded_output(results: list[SubmissionResult], budget: int) -> list[SubmissionResult]:
    """``results`` as one reply carries them: compiler output, the only program output a result
    holds, at most ``budget`` bytes over the batch, in order; a result cut says ``truncated``.
    What is stored and cached stays whole."""
    bounded = []
    for result in results:
        output = (result.compile_output or "").encode()
        if len(output) > budget:
            kept = output[:budget].decode("utf-8", "ignore")
            result = result.model_copy(update={"compile_output": kept, "truncated": True})
        budget -= min(len(output), budget)
        bounded.append(result)
    return bounded


def _describe(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}" for e in error.errors()
        )
    return str(error)
