"""A thin client of the judge service, with reward functions for TRL and verl and the k-of-n
and SFT data filters. It speaks HTTP only and needs httpx; it never imports the service."""

from rl_client._retry import RetryPolicy
from rl_client._wire import Submission, UpsertedProblem
from rl_client.aclient import AsyncJudgeClient
from rl_client.client import JudgeClient
from rl_client.errors import JudgeClientError, JudgeRejected, JudgeUnavailable
from rl_client.types import LADDER, Complexity, JudgeOptions, Result, Reward, TestResult

__all__ = [
    "LADDER",
    "AsyncJudgeClient",
    "Complexity",
    "JudgeClient",
    "JudgeClientError",
    "JudgeOptions",
    "JudgeRejected",
    "JudgeUnavailable",
    "Result",
    "Reward",
    "RetryPolicy",
    "Submission",
    "TestResult",
    "UpsertedProblem",
]
