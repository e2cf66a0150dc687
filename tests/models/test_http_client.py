"""The HTTP chat models' client: kept-alive connections, jittered retries, the rate limit, errors.

Against `LocalChatServer`, a real HTTP server on 127.0.0.1 speaking each wire protocol (OpenAI
chat completions and Ollama's /api/chat), which records the client port of every request: requests
that share a port came over one kept-alive connection.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graphengine.models import (
    Message,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
    OllamaChatModel,
    OpenAIChatModel,
    RateLimit,
    RetryPolicy,
)
from graphengine.models.testing import LocalChatServer, ollama_reply, openai_reply

HI = [Message.user("hi")]


def _openai(srv: LocalChatServer, **kw: Any) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", base_url=srv.url + "/v1", **kw)


def _ollama(srv: LocalChatServer, **kw: Any) -> OllamaChatModel:
    return OllamaChatModel("test-model", base_url=srv.url, **kw)


def _openai_reply(text: str) -> dict[str, Any]:
    return openai_reply(text)


PROTOS = {"openai": (_openai, _openai_reply), "ollama": (_ollama, ollama_reply)}


@pytest.fixture(params=sorted(PROTOS))
def proto(request: pytest.FixtureRequest) -> tuple[Callable[..., Any], Callable[[str], dict[str, Any]]]:
    """Each wire protocol in turn: (make the model, make a reply body)."""
    return PROTOS[request.param]


@pytest.fixture
def srv() -> Iterator[LocalChatServer]:
    """A fresh local server per test."""
    with LocalChatServer() as s:
        yield s


class Clock:
    """A fake monotonic clock and the sleep that advances it (rate limit tests without waiting)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


async def test_one_model_reuses_one_connection(proto: Any, srv: LocalChatServer) -> None:
    """Successive requests of one model travel over one kept-alive connection; another model
    object opens its own."""
    make, reply = proto
    for _ in range(4):
        srv.reply(reply("ok"))
    async with make(srv) as model:
        for _ in range(3):
            assert (await model.chat(HI)).text == "ok"
    async with make(srv) as other:
        await other.chat(HI)
    ports = [r.client_port for r in srv.requests]
    assert ports[0] == ports[1] == ports[2] != ports[3]


async def test_a_retry_after_a_5xx_keeps_the_connection(proto: Any, srv: LocalChatServer) -> None:
    """A 503 answered in full leaves the connection usable: the retry goes over the same one."""
    make, reply = proto
    srv.reply({"error": "busy"}, status=503).reply(reply("ok"))
    clock = Clock()
    async with make(srv, sleep=clock.sleep) as model:
        assert (await model.chat(HI)).text == "ok"
    assert srv.requests[0].client_port == srv.requests[1].client_port
    assert len(clock.waits) == 1


async def test_aclose_closes_the_connection_and_a_later_request_opens_another(
    proto: Any, srv: LocalChatServer
) -> None:
    """After `aclose`, the model still works, over a new connection."""
    make, reply = proto
    srv.reply(reply("a")).reply(reply("b"))
    model = make(srv)
    await model.chat(HI)
    await model.aclose()
    assert (await model.chat(HI)).text == "b"
    await model.aclose()
    assert srv.requests[0].client_port != srv.requests[1].client_port


def test_a_model_serves_several_event_loops_and_threads(proto: Any, srv: LocalChatServer) -> None:
    """One model object used from successive `asyncio.run` calls and from another thread's loop
    answers each time (an httpx client belongs to one loop: the model keeps one per loop)."""
    make, reply = proto
    for i in range(3):
        srv.reply(reply(f"r{i}"))
    model = make(srv)
    got = [asyncio.run(model.chat(HI)).text, asyncio.run(model.chat(HI)).text]
    out: list[str] = []
    t = threading.Thread(target=lambda: out.append(asyncio.run(model.chat(HI)).text))
    t.start()
    t.join(30)
    assert sorted([*got, *out]) == ["r0", "r1", "r2"]


async def test_429_then_200_waits_the_retry_after_and_answers(proto: Any, srv: LocalChatServer) -> None:
    """A 429 with Retry-After is followed, after exactly that wait (never jittered), by the
    answer of the retry."""
    make, reply = proto
    srv.reply({"error": "slow down"}, status=429, headers={"Retry-After": "3"}).reply(reply("ok"))
    clock = Clock()
    out = await make(srv, sleep=clock.sleep, retry=RetryPolicy(jitter=1.0)).chat(HI)
    assert out.text == "ok" and clock.waits == [3.0]


async def test_503s_are_retried_with_jittered_backoff_within_its_bounds(
    proto: Any, srv: LocalChatServer
) -> None:
    """Without Retry-After, the waits after 503s lie in [(1-jitter)*d, d] for d = backoff * 2**(k-1)
    capped at max_backoff, and are drawn at random (two models do not wait alike)."""
    make, reply = proto
    policy = RetryPolicy(max_retries=4, backoff=1.0, max_backoff=3.0, jitter=0.5)
    waits = []
    for _ in range(2):
        for _ in range(4):
            srv.reply({"error": "busy"}, status=503)
        srv.reply(reply("ok"))
        clock = Clock()
        assert (await make(srv, sleep=clock.sleep, retry=policy).chat(HI)).text == "ok"
        waits.append(clock.waits)
    for run in waits:
        for wait, d in zip(run, [1.0, 2.0, 3.0, 3.0], strict=True):
            assert d / 2 <= wait <= d
    assert waits[0] != waits[1]


def test_retry_delay_follows_its_formula() -> None:
    """`RetryPolicy.delay` is d * (1 - jitter * draw) with d the capped doubling backoff; a
    Retry-After is taken as it is."""
    p = RetryPolicy(backoff=0.5, max_backoff=20.0, jitter=0.5)
    for retry in range(1, 12):
        d = min(20.0, 0.5 * 2 ** (retry - 1))
        for draw in (0.0, 0.25, 0.999):
            assert p.delay(retry, None, draw=lambda draw=draw: draw) == pytest.approx(d * (1 - 0.5 * draw))
    assert p.delay(3, 7.5) == 7.5
    assert RetryPolicy(jitter=0).delay(2, None) == 1.0
    assert 0 <= RetryPolicy(jitter=1).delay(1000, None) <= 20.0  # a huge retry number neither overflows


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"max_retries": -1}, "max_retries"),
        ({"backoff": float("nan")}, "backoff"),
        ({"max_backoff": -1.0}, "max_backoff"),
        ({"max_retry_after": float("inf")}, "max_retry_after"),
        ({"jitter": 1.5}, "jitter"),
    ],
)
def test_a_bad_retry_policy_is_refused_naming_the_field(kw: dict[str, Any], field: str) -> None:
    """RetryPolicy refuses impossible settings with a ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        RetryPolicy(**kw)


async def test_slow_answers_time_out_each_attempt_then_raise_naming_the_model(
    proto: Any, srv: LocalChatServer
) -> None:
    """Answers slower than the timeout are abandoned attempt by attempt; the error names the
    model, the timeout and the attempts made."""
    make, reply = proto
    for _ in range(3):
        srv.reply(reply("late"), delay=600)
    model = make(srv, timeout=0.3, sleep=Clock().sleep, max_retries=2)
    with pytest.raises(ModelTimeoutError) as ei:
        await asyncio.wait_for(model.chat(HI), 60)
    err = ei.value
    assert (err.model, err.attempts) == ("test-model", 3)
    assert "model 'test-model'" in str(err) and "within 0.3s" in str(err)
    assert "gave up after 3 attempts" in str(err)


async def test_when_retries_run_out_the_error_names_model_status_and_attempts(
    proto: Any, srv: LocalChatServer
) -> None:
    """Persistent 503s end in ModelHTTPError with the model, the status and the number of attempts."""
    make, _reply = proto
    for _ in range(3):
        srv.reply({"error": "overloaded"}, status=503)
    with pytest.raises(ModelHTTPError) as ei:
        await make(srv, sleep=Clock().sleep, max_retries=2).chat(HI)
    err = ei.value
    assert (err.model, err.status, err.attempts, err.provider) == ("test-model", 503, 3, err.provider)
    assert "model 'test-model'" in str(err) and "503" in str(err) and "overloaded" in str(err)
    assert "gave up after 3 attempts" in str(err)


async def test_persistent_429_names_the_model_and_keeps_retry_after(proto: Any, srv: LocalChatServer) -> None:
    """A server that keeps answering 429 ends in ModelRateLimitError naming the model, with the
    last Retry-After."""
    make, _reply = proto
    for _ in range(2):
        srv.reply({"error": "quota"}, status=429, headers={"Retry-After": "2"})
    with pytest.raises(ModelRateLimitError) as ei:
        await make(srv, sleep=Clock().sleep, max_retries=1).chat(HI)
    assert (ei.value.model, ei.value.status, ei.value.retry_after, ei.value.attempts) == (
        "test-model",
        429,
        2.0,
        2,
    )
    assert "model 'test-model'" in str(ei.value)


async def test_a_connection_error_names_the_model(proto: Any) -> None:
    """A server that is not there gives ModelConnectionError naming the model, after the retries."""
    make, _reply = proto
    with LocalChatServer() as dead:
        pass
    with pytest.raises(ModelConnectionError, match="model 'test-model'") as ei:
        await make(dead, sleep=Clock().sleep, max_retries=1).chat(HI)
    assert ei.value.model == "test-model" and ei.value.attempts == 2


async def test_rate_limit_spaces_requests_including_retries(proto: Any, srv: LocalChatServer) -> None:
    """With 2 requests per 10 s, the third and fourth requests (a retry among them) wait for
    the window: every request, retries included, takes a turn."""
    make, reply = proto
    srv.reply(reply("a")).reply({"error": "busy"}, status=503).reply(reply("b")).reply(reply("c"))
    clock = Clock()
    limit = RateLimit(2, per=10.0, clock=clock)
    model = make(srv, sleep=clock.sleep, rate_limit=limit, retry=RetryPolicy(backoff=1.0, jitter=0))
    start = clock.now
    assert [(await model.chat(HI)).text for _ in range(3)] == ["a", "b", "c"]
    # request 1 at 0, request 2 (503) at 0, backoff 1 s, request 3 (the retry) at 10, request 4 at 10
    assert clock.waits == [1.0, 9.0]
    assert clock.now - start == 10.0
    await model.aclose()


async def test_rate_limit_shared_by_two_models_is_one_budget(srv: LocalChatServer) -> None:
    """One RateLimit object given to two models limits their requests together."""
    for _ in range(3):
        srv.reply(openai_reply("ok"))
    clock = Clock()
    shared = RateLimit(2, per=60.0, clock=clock)
    a, b = (
        _openai(srv, sleep=clock.sleep, rate_limit=shared),
        _openai(srv, sleep=clock.sleep, rate_limit=shared),
    )
    await a.chat(HI)
    await b.chat(HI)
    await a.chat(HI)
    assert clock.waits == [60.0]


async def test_rate_limit_holds_with_the_real_clock_under_concurrency(srv: LocalChatServer) -> None:
    """Six concurrent chats under 2 requests per 0.25 s all answer, and the last one cannot
    start before two full windows have passed."""
    for _ in range(6):
        srv.reply(openai_reply("ok"))
    model = _openai(srv, rate_limit=RateLimit(2, per=0.25))
    t0 = time.monotonic()
    outs = await asyncio.gather(*(model.chat(HI) for _ in range(6)))
    assert time.monotonic() - t0 >= 0.5
    assert [o.text for o in outs] == ["ok"] * 6
    await model.aclose()


def test_rate_limit_reservations_match_a_brute_force_schedule() -> None:
    """For random arrival times, each start is the earliest time at which the last `per`
    seconds hold fewer than `requests` earlier starts (checked by brute force)."""
    rng = random.Random(7)
    now = [0.0]
    for _ in range(300):
        # binary fractions: sums and differences of times are exact, so window edges compare exactly
        n, per = rng.randint(1, 4), rng.choice([0.5, 1.0, 3.0])
        now[0] = 0.0
        limit = RateLimit(n, per=per, clock=lambda: now[0])
        starts: list[float] = []
        for _ in range(rng.randint(1, 15)):
            now[0] += rng.choice([0.0, 0.125, 0.75, 2.0])
            start = now[0] + limit.reserve()
            # brute force: the earliest t, no earlier than the arrival and the last start (turns are
            # served in order), with fewer than n of the earlier starts in (t - per, t]; it is the
            # lower bound or the end of an earlier start's window
            lo = max([now[0], *starts])
            candidates = sorted({lo, *(s + per for s in starts if s + per >= lo)})
            earliest = next(t for t in candidates if sum(1 for s in starts if t - per < s <= t) < n)
            assert start == earliest
            starts.append(start)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((0,), "requests"),
        ((1.5,), "requests"),
        ((True,), "requests"),
        ((1, 0), "per"),
        ((1, float("inf")), "per"),
    ],
)
def test_a_bad_rate_limit_is_refused_naming_the_field(args: tuple[Any, ...], field: str) -> None:
    """RateLimit refuses impossible settings with a ValueError naming the argument."""
    with pytest.raises(ValueError, match=field):
        RateLimit(*args)


def test_importing_the_models_loads_neither_httpx_nor_tenacity() -> None:
    """`import graphengine.models` stays light: httpx and tenacity load on a model's first request."""
    code = "import sys, graphengine.models; print(sorted({'httpx', 'tenacity'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
