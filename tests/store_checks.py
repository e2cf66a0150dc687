"""Checks several store test modules run on their own backend; no tests live here."""

from __future__ import annotations

from graphengine.store import RunRecord, RunStatus, StepRecord, Store


async def check_json_text_kept(s: Store) -> None:
    """`route` and run `meta` come back from `s` with their exact JSON text (spacing and key order
    as written), as a JSON column or a JSON-checked text column must keep them."""
    meta = b'{ "b" : 1,  "a":[ 1 ,2 ] }'
    await s.create_run(RunRecord("r", RunStatus.RUNNING, b"x", meta=meta))
    rec = StepRecord("r", 1, "n", None, '{"goto" :  "x"}', ts=1.0)
    await s.save_step(rec)
    assert list(await s.load_steps("r")) == [rec]
    run = await s.get_run("r")
    assert run is not None
    assert run.meta == meta
