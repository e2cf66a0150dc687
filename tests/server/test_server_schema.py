"""Schemathesis against the generated OpenAPI schema: no 5xx, every response fits the schema."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
)
from server_app import load_app_module  # noqa: E402

from graphengine.server import create_app  # noqa: E402
from graphengine.store import MemoryStore  # noqa: E402

TOKEN = "schema-token"


def _app(token: str | None) -> Any:
    eng = load_app_module().build(MemoryStore())
    # Give the fuzzer runs to find: one done, one waiting for input.
    import asyncio

    asyncio.run(eng.run("done", {"n": 0}))
    asyncio.run(eng.run("paused", {"n": 10}))
    # Schemathesis's ASGI client sends `Host: testserver` (Starlette's test client).
    return create_app(eng, token=token, allowed_hosts=["testserver"])


def _unknowable(case: Any) -> list[Any]:
    """Checks no schema can pass on an operation: whether a cron expression can fire and whether a
    time zone name exists are decided by the server (422 naming the field), not by JSON Schema, so a
    schema-valid schedule may be refused."""
    return [positive_data_acceptance] if case.path == "/api/schedules" and case.method == "POST" else []


open_schema = schemathesis.openapi.from_asgi("/openapi.json", _app(None))
secured_schema = schemathesis.openapi.from_asgi(
    "/openapi.json", _app(TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}
)
# derandomize: the same cases on every run, so CI never flakes on a case a previous run did not try
FAST = settings(
    max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None, derandomize=True
)


@open_schema.parametrize()
@FAST
def test_api_conforms_to_its_schema(case: Any) -> None:
    """Every operation, on generated input: no server error, and the response matches the schema."""
    if case.query and case.query.get("wait") and case.path.endswith(("/resume", "/continue")):
        case.query["wait"] = False  # a generated resume (or turn) of the blocking node would wait forever
    case.call_and_validate(excluded_checks=_unknowable(case))


@secured_schema.parametrize()
@FAST
def test_api_with_token_conforms_to_its_schema(case: Any) -> None:
    """With auth on and the token sent, every operation still conforms to the schema."""
    # The token added here would turn a generated "header missing" case into a valid one, so the
    # checks about negative cases are left to the test above; ignored_auth still probes every
    # operation without and with a wrong token and expects 401.
    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        excluded_checks=[negative_data_rejection, missing_required_header, *_unknowable(case)],
    )
