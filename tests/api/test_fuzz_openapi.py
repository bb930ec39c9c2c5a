"""Every route fuzzed from the service's own OpenAPI document (schemathesis), against real
sandboxes and a real store: no input may get a 5xx, a status or a body the document does not
declare, or a /run_code SandboxError (the judge broken by what a client sent)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks
from schemathesis.python.asgi import shutdown_lifespans

from judge_service.api import create_app
from judge_service.settings import Settings

pytestmark = pytest.mark.integration

# The schema is read when the module is collected, so the app exists then. It is read from the
# app object, not fetched (a request would start the app's lifespan, its store and sandboxes,
# at collection): the lifespan starts with the first case.
_STORE = tempfile.TemporaryDirectory(prefix="judge-fuzz-")
APP = create_app(
    Settings(
        database_url=f"sqlite:///{Path(_STORE.name) / 'judge.db'}",
        sandboxes_per_language=1,
        complexity_empirical=False,
        max_time_limit_ms=1000,  # a generated program that loops costs a second, not thirty
        api_keys=["fuzz"],  # the document declares bearer auth: schemathesis checks it holds
    )
)
AUTH = {"Authorization": "Bearer fuzz"}
# Validity is more than the schema: a language must be one the service runs, a file name one a
# sandbox can create, a batch non-empty (so a schema-valid request may be a 422); and pydantic
# reads JSON's true as 1 (so a schema-invalid one may be judged).
BEYOND_THE_SCHEMA = [checks.positive_data_acceptance, checks.negative_data_rejection]
schema = schemathesis.openapi.from_dict(APP.openapi())
schema.app = APP


@pytest.fixture(scope="module", autouse=True)
def _sandboxes_go_afterwards() -> Iterator[None]:
    yield
    shutdown_lifespans()


@schema.parametrize()
@settings(
    max_examples=100,  # per route: about half a minute in all
    derandomize=True,  # the same cases on every run
    database=None,  # nothing written into the checkout
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_breaks_a_route(case: schemathesis.Case) -> None:
    response = case.call_and_validate(headers=AUTH, excluded_checks=BEYOND_THE_SCHEMA)
    if case.path == "/run_code" and response.status_code == 200:
        assert response.json()["status"] != "SandboxError", response.text
