"""`PostgresStore`: the scale-out store, one PostgreSQL database shared by many processes.

Decisions a caller should know:

- asyncpg, imported on first use (`pip install 'graphengine[postgres]'`; without it,
  `MissingDriverError`). A connection pool (`min_size`..`max_size`) is opened lazily inside the
  running event loop and reopened when the store is used from another loop.
- Tables live in their own schema (`schema="graphengine"` by default, created if missing), found
  through the connections' `search_path`, so statements are plain literals and two deployments
  (or two tests) can share a database without seeing each other.
- The schema is versioned (`schema_version` table); migrations run on open inside one
  transaction holding a transaction-scoped advisory lock, so processes opening a fresh database
  together do not race. A database written by a newer graphengine is refused
  (`StoreUnavailableError`).
- Column types: encoded states, deltas, calls and events are `bytea`, because the contract is
  a byte-for-byte round trip and the codec's bytes need not be JSON; the fields the records
  declare to be JSON text (`route`, run `meta`) are `json` columns (validated by the server),
  not `jsonb`, because `json` keeps the text verbatim and `jsonb` would re-serialize it. Run
  ids sort byte-wise (`COLLATE "C"`), like every other backend.
- Autocommit: every write is ONE statement and therefore one transaction. `save_step` is an
  `INSERT ... SELECT` that checks, in the same statement, that the run exists, that the step is
  exactly the next one and (see leases) that the writer may write; `save_branches` inserts the
  whole batch from arrays (`unnest`) in one statement. Steps of concurrent runs are
  group-committed: those ready at the same moment go in one `unnest` statement with the same
  checks per row (one transaction, one WAL flush), and each `save_step` returns after that commit.
  New runs (`create_run`) and status changes (`set_status`) of concurrent runs are grouped the
  same way, each kind in its own statement; a row the grouped statement did not write is written
  again alone, so every call gets the outcome (and the error) it gets when made alone.
- Leases and fencing (`LeaseStore`): `claim` gives a run to a worker for a time (database
  clock) with a fencing token; while this store holds it, every step, branch and status write
  to the run is conditioned on that token in the same statement and locks the run row in share
  mode, so a claim by another worker and a stale write are serialized: the write either commits
  before the claim (and the new owner sees it) or fails with `LeaseLostError`.
- A write waits at most `lock_timeout` seconds (10 by default; None: as long as the server's
  own setting lets it) for a row lock another session holds, such as an operator's open
  transaction over a run's row, then fails with `StoreUnavailableError` (nothing written, the
  run resumable). A group commit that times out so is written again a step per statement:
  the other runs of the group commit, and only the run whose row is locked gets the error.
- Pooled connections carry no session state (no SET, LISTEN, cursors or session advisory
  locks; search_path and lock_timeout are startup settings), so returning one to the pool
  sends nothing to the server: asyncpg's default reset query (`RESET ALL`, `UNLISTEN *`, ...)
  would be a second round trip on every statement. A connection returned inside a
  transaction is still rolled back.
- Step writes go over one connection held out of the pool (the writer; none with `max_size=1`):
  group commit has one batch in flight at a time, so one connection serves them all, and each
  step saves the pool's acquire and release. A writer the server closed is replaced on the next
  write; one cancelled mid-statement goes back to the pool, which waits out the cancellation.
- Driver exceptions are translated in ONE table keyed by SQLSTATE class and client exception
  name (`_TRANSLATE`, checked complete by `tests/store/test_store_postgres.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

from ._branch_claims import BranchClaimMixin, BranchClaimStatements
from ._lease import Lease
from ._sql import (
    LOCK_TIMEOUT,
    Grouped,
    GroupedRunsMixin,
    LeaseMixin,
    Op,
    Statements,
    WaitsMixin,
    WaitStatements,
    WriterMixin,
    group_rows,
    meta_text,
    run_record,
    terminate,
)
from ._sql._group import Pending
from ._sql._postgres import (
    CREATE_SCHEMA,
    OTHER_ERRORS,
    SCHEMA_NAME,
    TRANSLATE,
    connection_class,
    driver,
    translate,
)
from ._sql._schedules import ScheduleSQLMixin, ScheduleStatements
from .errors import (
    StoreError,
    StoreUnavailableError,
)
from .ids import check_id
from .records import RunRecord

__all__ = ["SCHEMA_VERSION", "PostgresStore"]

SCHEMA_VERSION: Final = 4
"""Schema version this module writes; older databases are migrated on open."""

# _MIGRATIONS[v] takes a schema from version v to v + 1. Append; never edit a released entry.
_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE runs (
            run_id        text COLLATE "C" PRIMARY KEY,
            status        text NOT NULL,
            initial       bytea NOT NULL,
            fingerprint   text NOT NULL,
            state_version integer NOT NULL,
            created_at    double precision NOT NULL,
            updated_at    double precision NOT NULL,
            error         text,
            error_node    text,
            meta          json NOT NULL,
            -- Lease: who owns the run until when, and the fencing token of the newest claim.
            lease_owner   text,
            lease_token   bigint NOT NULL DEFAULT 0,
            lease_expires timestamptz
        )""",
        "CREATE INDEX runs_created ON runs (created_at DESC, run_id DESC)",
        "CREATE INDEX runs_status_created ON runs (status, created_at DESC, run_id DESC)",
        """CREATE TABLE steps (
            run_id   text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            step     integer NOT NULL,
            node_id  text NOT NULL,
            delta    bytea,
            route    json NOT NULL,
            state    bytea,
            attempt  integer NOT NULL,
            error    text,
            calls    bytea,
            events   bytea,
            ts       double precision NOT NULL,
            PRIMARY KEY (run_id, step)
        )""",
        # Resume asks "newest step with a snapshot"; this index holds only those steps.
        "CREATE INDEX steps_snapshot ON steps (run_id, step) WHERE state IS NOT NULL",
        """CREATE TABLE checkpoints (
            run_id text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            label  text NOT NULL,
            step   integer NOT NULL,
            state  bytea NOT NULL,
            ts     double precision NOT NULL,
            PRIMARY KEY (run_id, label)
        )""",
        """CREATE TABLE branches (
            run_id  text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            step    integer NOT NULL,
            branch  integer NOT NULL,
            node_id text NOT NULL,
            delta   bytea,
            attempt integer NOT NULL,
            calls   bytea,
            ts      double precision NOT NULL,
            PRIMARY KEY (run_id, step, branch)
        )""",
    ),
    # v2: branch claims.
    (
        # Claims of fan-out branches run as jobs of their own (`graphengine.store._branch_claims`).
        """CREATE TABLE branch_claims (
            run_id  text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            step    integer NOT NULL,
            branch  integer NOT NULL,
            owner   text NOT NULL,
            token   bigint NOT NULL,
            expires timestamptz NOT NULL,
            error   text,
            PRIMARY KEY (run_id, step, branch)
        )""",
    ),
    # v3: schedules (graphengine.schedules): what a scheduler queries is a column, the rest opaque JSON.
    (
        """CREATE TABLE schedules (
            schedule_id text COLLATE "C" PRIMARY KEY,
            spec        bytea NOT NULL,
            input       bytea NOT NULL,
            due_at      bigint NOT NULL,
            paused      boolean NOT NULL,
            state       bytea NOT NULL,
            version     bigint NOT NULL,
            created_at  double precision NOT NULL,
            updated_at  double precision NOT NULL
        )""",
        "CREATE INDEX schedules_due ON schedules (due_at) WHERE NOT paused",
    ),
    # v4: durable timers and signals (`WaitStore`). One timer row per run that waited; the
    # partial index holds only timers with a due time, which `clear_timer` drops on wake-up.
    (
        """CREATE TABLE timers (
            run_id  text COLLATE "C" PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
            step    integer NOT NULL,
            wake_at double precision,
            signal  text COLLATE "C"
        )""",
        "CREATE INDEX timers_due ON timers (wake_at) WHERE wake_at IS NOT NULL",
        """CREATE TABLE signals (
            run_id     text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            signal_id  text COLLATE "C" NOT NULL,
            name       text COLLATE "C" NOT NULL,
            payload    bytea NOT NULL,
            ts         double precision NOT NULL,
            taken_step integer,
            PRIMARY KEY (run_id, signal_id)
        )""",
        "CREATE INDEX signals_arrival ON signals (run_id, name, ts)",
    ),
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_SCHEDULE_STATEMENTS: Final = ScheduleStatements(
    insert="""INSERT INTO schedules (schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at)
SELECT $1::text, $2::bytea, $3::bytea, $4::bigint, $5::boolean, $6::bytea, $7::bigint, $8::float8, $9::float8
WHERE NOT EXISTS (SELECT 1 FROM schedules WHERE schedule_id = $10::text)""",
    get="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE schedule_id = $1",
    list_all="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules ORDER BY schedule_id LIMIT $1",
    list_due="""SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE NOT paused AND due_at <= $1::bigint
ORDER BY due_at, schedule_id LIMIT $2""",
    update="""UPDATE schedules SET spec = $1, input = $2, due_at = $3, paused = $4, state = $5, updated_at = $6,
  version = version + 1 WHERE schedule_id = $7 AND version = $8""",
    delete="DELETE FROM schedules WHERE schedule_id = $1",
)


# Statements are plain literals (no string building anywhere), every value a bound parameter.
# Casts in SELECT lists fix the parameter types the server would otherwise guess as text.

# Transaction-scoped, so it is released by COMMIT/ROLLBACK even if this process dies.
_MIGRATION_LOCK: Final = "SELECT pg_advisory_xact_lock(hashtext('graphengine.store:' || $1::text))"
_NO_LOCK_TIMEOUT: Final = "SET LOCAL lock_timeout = 0"
_VERSION_TABLE: Final = "CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)"
_GET_VERSION: Final = "SELECT coalesce(max(version), 0) FROM schema_version"
_SET_VERSION: Final = "INSERT INTO schema_version (version) VALUES ($1)"

# Statements are plain literals (no string building anywhere), every value a bound parameter.
# Casts fix the parameter types the server would otherwise guess as text.

# Inserts nothing ("INSERT 0 0") while rows of an earlier run with this id outlive its run
# record (deleted under them): a new run must never fold another run's steps. Parameters are
# numbered in order of appearance, in the order `graphengine.store._sql.Statements` documents.
_STATEMENTS: Final = Statements(
    insert_run="""INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT $1::text, $2::text, $3::bytea, $4::text, $5::integer, $6::float8, $7::float8, $8::text, $9::text, $10::text::json
WHERE NOT EXISTS (SELECT 1 FROM steps WHERE run_id = $11) AND NOT EXISTS (SELECT 1 FROM branches WHERE run_id = $12)
  AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE run_id = $13)""",
    orphans="""SELECT (SELECT min(step) FROM steps WHERE run_id = $1), EXISTS (SELECT 1 FROM branches WHERE run_id = $2),
    EXISTS (SELECT 1 FROM checkpoints WHERE run_id = $3)""",
    first_step="SELECT step, state IS NOT NULL FROM steps WHERE run_id = $1 ORDER BY step LIMIT 1",
    run_exists="SELECT 1 FROM runs WHERE run_id = $1",
    get_run="SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta::text FROM runs WHERE run_id = $1",
    list_runs="SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta::text FROM runs ORDER BY created_at DESC, run_id DESC LIMIT $1",
    list_runs_by_status="SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta::text FROM runs WHERE status = $1 ORDER BY created_at DESC, run_id DESC LIMIT $2",
    status_state="SELECT status, coalesce((SELECT max(step) FROM steps WHERE run_id = $1), 0) FROM runs WHERE run_id = $2",
    # Without a lease: refused (0 rows) while another worker's lease on the run is live. The
    # status check is on the row itself, so it is re-checked on the newest row version when a
    # concurrent update of the run commits first.
    set_status="""UPDATE runs SET status = $1, error = $2, error_node = $3, updated_at = $4
WHERE run_id = $5 AND (lease_expires IS NULL OR lease_expires <= now())
  AND ($6::integer IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = $7), 0) = $8::integer)
  AND ($9::text IS NULL OR status = $10::text)""",
    set_status_fenced="""UPDATE runs SET status = $1, error = $2, error_node = $3, updated_at = $4
WHERE run_id = $5
  AND ($6::integer IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = $7), 0) = $8::integer)
  AND ($9::text IS NULL OR status = $10::text) AND lease_token = $11 AND lease_expires > now()""",
    # The hot path: one statement, one transaction. It inserts nothing ("INSERT 0 0") unless the
    # run exists (and may be written by this writer) and the step is exactly the one after the
    # newest stored one; both checks are primary-key lookups. Refusals are explained on a cold
    # path. Two writers of the same next step both pass the check; the primary key lets one commit.
    insert_step="""INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT $1::text, $2::integer, $3::text, $4::bytea, $5::text::json, $6::bytea, $7::integer, $8::text, $9::bytea, $10::bytea, $11::float8
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = $12), 0) = $13::integer - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = $14 AND (lease_expires IS NULL OR lease_expires <= now()))""",
    # FOR SHARE makes a concurrent claim (an UPDATE of the row) and this write wait for each
    # other; read committed then re-checks the token on the claimed row, so a stale token never
    # commits a step after another worker's claim.
    insert_step_fenced="""INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT $1::text, $2::integer, $3::text, $4::bytea, $5::text::json, $6::bytea, $7::integer, $8::text, $9::bytea, $10::bytea, $11::float8
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = $12), 0) = $13::integer - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = $14 AND lease_token = $15 AND lease_expires > now() FOR SHARE)""",
    write_state="""SELECT lease_owner, lease_token, lease_expires > now(), extract(epoch FROM lease_expires)::float8,
    (SELECT max(step) FROM steps WHERE run_id = $1)
FROM runs WHERE run_id = $2""",
    # The newest snapshot and everything after it in ONE statement (one consistent snapshot of
    # the table even while other connections append). Without a snapshot the base is 0: every step.
    load_from_snapshot="""SELECT run_id, step, node_id, delta, route::text, state, attempt, error, calls, events, ts FROM steps
WHERE run_id = $1 AND step >= coalesce(
    (SELECT step FROM steps WHERE run_id = $2 AND state IS NOT NULL ORDER BY step DESC LIMIT 1), 0)
ORDER BY step""",
    # LIMIT NULL means no limit in PostgreSQL.
    load_steps="SELECT run_id, step, node_id, delta, route::text, state, attempt, error, calls, events, ts FROM steps WHERE run_id = $1 AND step > $2 ORDER BY step LIMIT $3",
    load_branches="SELECT run_id, step, branch, node_id, delta, attempt, calls, ts FROM branches WHERE run_id = $1 AND step = $2 ORDER BY branch",
    save_checkpoint="""INSERT INTO checkpoints (run_id, label, step, state, ts)
SELECT $1::text, $2::text, $3::integer, $4::bytea, $5::float8 WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = $6)
ON CONFLICT (run_id, label) DO UPDATE SET step = excluded.step, state = excluded.state, ts = excluded.ts""",
    load_checkpoint="SELECT run_id, label, step, state, ts FROM checkpoints WHERE run_id = $1 AND label = $2",
    set_meta="UPDATE runs SET meta = $1::text::json, updated_at = $2 WHERE run_id = $3",
    delete_run="DELETE FROM runs WHERE run_id = $1",
)
_INSERT_STEP_FENCED: Final = _STATEMENTS.insert_step_fenced or ""
_WAIT_STATEMENTS: Final = WaitStatements(
    put_timer="""INSERT INTO timers (run_id, step, wake_at, signal)
SELECT $1::text, $2::integer, $3::float8, $4::text WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = $5)
ON CONFLICT (run_id) DO UPDATE SET step = excluded.step, wake_at = excluded.wake_at, signal = excluded.signal""",
    get_timer="SELECT run_id, step, wake_at, signal FROM timers WHERE run_id = $1",
    clear_timer="UPDATE timers SET wake_at = NULL WHERE run_id = $1 AND step = $2",
    due_timers="""SELECT t.run_id, t.step, t.wake_at, t.signal FROM timers t JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND t.wake_at <= $1 AND r.status = 'waiting' ORDER BY t.wake_at, t.run_id LIMIT $2""",
    next_due="""SELECT t.wake_at FROM timers t JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND r.status = 'waiting' ORDER BY t.wake_at LIMIT 1""",
    add_signal="""INSERT INTO signals (run_id, signal_id, name, payload, ts, taken_step)
SELECT $1::text, $2::text, $3::text, $4::bytea, $5::float8, $6::integer WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = $7)
ON CONFLICT (run_id, signal_id) DO NOTHING""",
    list_signals="SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = $1 ORDER BY ts, signal_id",
    pick_signal="""SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = $1 AND name = $2
AND (taken_step IS NULL OR taken_step >= $3) ORDER BY ts, signal_id LIMIT 1""",
    take_signal="""UPDATE signals SET taken_step = $1 WHERE run_id = $2 AND signal_id = $3
AND (taken_step IS NULL OR taken_step >= $4)""",
    release_signals="UPDATE signals SET taken_step = NULL WHERE run_id = $1 AND taken_step >= $2",
)
# Kept by name: tests read the snapshot statement's plan.
_LOAD_FROM_SNAPSHOT: Final = _STATEMENTS.load_from_snapshot

# One multi-row INSERT from arrays, so a batch commits whole: a taken (run, step, branch) or
# an unknown run (foreign key) fails the statement and writes none of it.
_INSERT_BRANCHES: Final = """INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts)
SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::text[], $5::bytea[], $6::integer[], $7::bytea[], $8::float8[])
WHERE NOT EXISTS (SELECT 1 FROM runs WHERE run_id = ANY($1::text[]) AND lease_expires > now())"""
# A fenced batch belongs to one run ($9) and carries its token ($10); see insert_step_fenced.
_INSERT_BRANCHES_FENCED: Final = """INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts)
SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::text[], $5::bytea[], $6::integer[], $7::bytea[], $8::float8[])
WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = $9 AND lease_token = $10 AND lease_expires > now() FOR SHARE)"""

# Group commit: the steps of many runs in ONE statement (one transaction, one WAL flush), from
# arrays, each row with the conditions of `insert_step` (token NULL) or `insert_step_fenced`
# (its token current; FOR SHARE, which a plain row merely does not need); RETURNING names the
# runs whose step went in (a batch holds one step per run). ON CONFLICT: a step another process
# wrote first is refused like any step that is not the next one, instead of failing the batch.
_INSERT_STEPS: Final = """INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT t.run_id, t.step, t.node_id, t.delta, t.route::json, t.state, t.attempt, t.error, t.calls, t.events, t.ts
FROM unnest($1::text[], $2::integer[], $3::text[], $4::bytea[], $5::text[], $6::bytea[], $7::integer[], $8::text[],
    $9::bytea[], $10::bytea[], $11::float8[], $12::bigint[])
    AS t (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts, token)
WHERE coalesce((SELECT max(s.step) FROM steps s WHERE s.run_id = t.run_id), 0) = t.step - 1
  AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = t.run_id AND CASE WHEN t.token IS NULL
      THEN r.lease_expires IS NULL OR r.lease_expires <= now()
      ELSE r.lease_token = t.token AND r.lease_expires > now() END FOR SHARE)
ON CONFLICT DO NOTHING RETURNING run_id"""
_MAX_BATCH: Final = 1000

# Group commit of new runs and of status changes (`graphengine.store._sql._grouped`): many runs'
# in ONE statement, each row with the conditions of its single statement (`insert_run`;
# `set_status` or, with a token, `set_status_fenced`), RETURNING the runs it wrote. The columns
# are `RUN_COLUMNS` and `STATUS_COLUMNS` of that module.
_INSERT_RUNS: Final = """INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT t.run_id, t.status, t.initial, t.fingerprint, t.state_version, t.created_at, t.updated_at, t.error, t.error_node, t.meta::json
FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::integer[], $6::float8[], $7::float8[], $8::text[],
    $9::text[], $10::text[])
    AS t (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
WHERE NOT EXISTS (SELECT 1 FROM steps s WHERE s.run_id = t.run_id)
  AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.run_id = t.run_id)
  AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.run_id = t.run_id)
ON CONFLICT (run_id) DO NOTHING RETURNING run_id"""
_SET_STATUSES: Final = """UPDATE runs r SET status = t.status, error = t.error, error_node = t.error_node, updated_at = t.updated_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::integer[], $7::text[], $8::bigint[])
    AS t (status, error, error_node, updated_at, run_id, expect_step, expect_status, token)
WHERE r.run_id = t.run_id
  AND (t.expect_step IS NULL OR coalesce((SELECT max(s.step) FROM steps s WHERE s.run_id = t.run_id), 0) = t.expect_step)
  AND (t.expect_status IS NULL OR r.status = t.expect_status)
  AND CASE WHEN t.token IS NULL THEN r.lease_expires IS NULL OR r.lease_expires <= now()
      ELSE r.lease_token = t.token AND r.lease_expires > now() END
RETURNING r.run_id"""

# Deleting history below a step is ONE statement: both deletes run only if that step carries a
# snapshot (the run stays rebuildable).
_DELETE_STEPS_BEFORE: Final = """WITH snap AS (SELECT 1 FROM steps WHERE run_id = $1 AND step = $2 AND state IS NOT NULL),
gone_branches AS (DELETE FROM branches WHERE run_id = $1 AND step < $2 AND EXISTS (SELECT 1 FROM snap)),
gone_claims AS (DELETE FROM branch_claims WHERE run_id = $1 AND step < $2 AND EXISTS (SELECT 1 FROM snap)),
gone AS (DELETE FROM steps WHERE run_id = $1 AND step < $2 AND EXISTS (SELECT 1 FROM snap) RETURNING 1)
SELECT (SELECT count(*) FROM gone), EXISTS (SELECT 1 FROM snap), EXISTS (SELECT 1 FROM steps WHERE run_id = $1)"""

# Leases. The token only ever grows, so a token from any earlier claim is stale forever.
_CLAIM: Final = """UPDATE runs SET lease_owner = $2, lease_token = lease_token + 1,
    lease_expires = now() + make_interval(secs => $3)
WHERE run_id = $1 AND (lease_expires IS NULL OR lease_expires <= now() OR lease_owner = $2)
RETURNING lease_token, extract(epoch FROM lease_expires)::float8"""
_RENEW: Final = """UPDATE runs SET lease_expires = now() + make_interval(secs => $3)
WHERE run_id = $1 AND lease_token = $2 AND lease_expires > now()
RETURNING extract(epoch FROM lease_expires)::float8"""
_RELEASE: Final = """UPDATE runs SET lease_owner = NULL, lease_expires = NULL
WHERE run_id = $1 AND lease_token = $2"""

# Branch claims (`BranchClaimMixin`). A claim takes a free, expired or new row, never one whose
# branch is stored or was marked failed; the token only ever grows, as a run's lease token.
_CLAIM_BRANCH: Final = """INSERT INTO branch_claims AS c (run_id, step, branch, owner, token, expires)
SELECT $1::text, $2::integer, $3::integer, $4::text, 1, now() + make_interval(secs => $5)
WHERE NOT EXISTS (SELECT 1 FROM branches b WHERE b.run_id = $1 AND b.step = $2 AND b.branch = $3)
  AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = $1)
ON CONFLICT (run_id, step, branch) DO UPDATE SET owner = excluded.owner, token = c.token + 1, expires = excluded.expires
WHERE c.expires <= now() AND c.error IS NULL
RETURNING c.token, extract(epoch FROM c.expires)::float8"""
# The fenced save locks the claim row in share mode, so a re-claim (an UPDATE of it) and a stale
# save are serialized: the save commits before the re-claim or is re-checked against it.
_CLAIMS: Final = BranchClaimStatements(
    renew="""UPDATE branch_claims SET expires = now() + make_interval(secs => $1)
WHERE run_id = $2 AND step = $3 AND branch = $4 AND token = $5 AND expires > now()""",
    fail="""UPDATE branch_claims SET error = $1
WHERE run_id = $2 AND step = $3 AND branch = $4 AND token = $5 AND expires > now()""",
    save="""INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts)
SELECT $1::text, $2::integer, $3::integer, $4::text, $5::bytea, $6::integer, $7::bytea, $8::float8
WHERE EXISTS (SELECT 1 FROM branch_claims WHERE run_id = $9 AND step = $10 AND branch = $11 AND token = $12
    AND expires > now() FOR SHARE)
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = $13 AND (lease_expires IS NULL OR lease_expires <= now()) FOR SHARE)""",
    stored="SELECT 1 FROM branches WHERE run_id = $1 AND step = $2 AND branch = $3",
    counted="SELECT count(*) FROM branches WHERE run_id = $1 AND step = $2",
    failed="SELECT branch, error FROM branch_claims WHERE run_id = $1 AND step = $2 AND error IS NOT NULL ORDER BY branch",
    expiry="SELECT token, extract(epoch FROM expires)::float8 FROM branch_claims WHERE run_id = $1 AND step = $2 AND branch = $3",
)


_Op = Op
_TRANSLATE: Final = TRANSLATE
"""Kept by name for tests: the one table translating driver exceptions."""
_translate: Final = translate


def _meta_text(run: RunRecord) -> str:
    return meta_text(run, "PostgresStore keeps it in a json column")


class PostgresStore(
    WriterMixin, GroupedRunsMixin, LeaseMixin, BranchClaimMixin, ScheduleSQLMixin, WaitsMixin
):
    """A `Store` (and `LeaseStore`) in a PostgreSQL database, shared by many processes and machines.

    `PostgresStore("postgresql://user@host:5432/db")` needs no event loop and connects on first
    use. Use `async with PostgresStore(dsn) as store:` or `await store.close()` to release the
    pool; a closed store raises `StoreUnavailableError`. Errors: `RunExistsError`,
    `StepConflictError` (a step that is not the next one of an existing run), `LeaseLostError`
    (a write under a lost lease, or to a run another worker holds), `StoreUnavailableError`
    (cannot connect, the server went away, a lock held elsewhere past `lock_timeout` seconds, a
    schema newer than this code), `MissingDriverError`.
    """

    _sql = _STATEMENTS
    _claims = _CLAIMS
    _schedule_sql = _SCHEDULE_STATEMENTS
    _wait_sql = _WAIT_STATEMENTS
    _max_batch = _MAX_BATCH
    _lost_replies = True

    max_value_bytes: int | None = (1 << 30) - (1 << 20)
    """A bytea or text value, and a message to the server, holds at most 1 GB; 1 MiB is left for
    the statement and the other columns."""

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "graphengine",
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
        lock_timeout: float | None = LOCK_TIMEOUT,
    ) -> None:
        if not SCHEMA_NAME.fullmatch(schema):
            raise ValueError(f"schema={schema!r}; expected a lower-case SQL identifier ([a-z_][a-z0-9_]*)")
        self._init_settings(min_size, max_size, connect_timeout, OTHER_ERRORS, lock_timeout)
        self.dsn = dsn
        """Where the database is (a libpq-style URL)."""
        self.schema = schema
        """The PostgreSQL schema holding this store's tables."""
        # Step writes go over one connection held out of the pool (`WriterMixin`).
        self._init_writer()
        self._init_sql()
        self._server_errors: tuple[type[BaseException], ...] = ()
        # New runs and status changes of many runs commit together too (`GroupedRunsMixin`).
        self._init_grouped(_MAX_BATCH)

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"PostgresStore(schema={self.schema!r})"

    # ---------------------------------------------------------------- connection management

    async def _connect(self) -> Any:
        asyncpg = driver()
        # InternalClientError: a connection the server ended while idle can be caught between
        # its error message and its end of stream; a write there fails with it.
        self._errors = (
            asyncpg.PostgresError,
            asyncpg.InterfaceError,
            asyncpg.InternalClientError,
            *OTHER_ERRORS,
        )
        self._server_errors = (asyncpg.PostgresError,)
        where = repr(self)
        try:
            # Create the schema first, on a plain connection: search_path must name an existing
            # schema for the pool's connections to find (and create) the tables in it.
            conn = await asyncpg.connect(self.dsn, timeout=self.connect_timeout)
            try:
                ddl = await conn.fetchval(CREATE_SCHEMA, self.schema)
                async with conn.transaction():
                    # CREATE SCHEMA IF NOT EXISTS can still race on the catalog's unique index.
                    await conn.execute(_MIGRATION_LOCK, self.schema)
                    await conn.execute(ddl)
            finally:
                await conn.close()
            settings = {"search_path": self.schema}
            if self.lock_timeout is not None:
                # A startup setting (milliseconds), like search_path: nothing to reset on release.
                settings["lock_timeout"] = str(max(1, round(self.lock_timeout * 1000)))
            pool = await asyncpg.create_pool(
                self.dsn,
                min_size=self.min_size,
                max_size=self.max_size,
                timeout=self.connect_timeout,
                server_settings=settings,
                connection_class=connection_class(),
            )
        except self._errors as exc:
            raise _translate(exc, "open", where) from exc
        return await self._migrated(pool, _translate)

    async def _migrate(self, conn: Any) -> None:
        async with conn.transaction():
            # Everyone opening the store takes the lock, so a second process waits for the
            # first to finish migrating and then finds the new version, however long that takes
            # (lock_timeout bounds the runs' writes, not this wait).
            await conn.execute(_NO_LOCK_TIMEOUT)
            await conn.execute(_MIGRATION_LOCK, self.schema)
            await conn.execute(_VERSION_TABLE)
            version = int(await conn.fetchval(_GET_VERSION))
            if version > SCHEMA_VERSION:
                raise StoreUnavailableError(
                    f"{self!r} has schema version {version}, newer than the {SCHEMA_VERSION} this "
                    "graphengine understands; upgrade graphengine to open it"
                )
            for v in range(version, SCHEMA_VERSION):
                for stmt in _MIGRATIONS[v]:
                    await conn.execute(stmt)
                await conn.execute(_SET_VERSION, v + 1)

    async def _close_pool(self, pool: Any) -> None:
        await pool.close()

    # ---------------------------------------------------------------- driver glue (SQLStore)

    async def _rows(self, sql: str, params: Sequence[Any], *, run_id: str | None = None) -> list[Any]:
        return await self._fetch("read", sql, params, run_id=run_id)

    async def _fetch(
        self, op: _Op, sql: str, params: Sequence[Any], *, run_id: str | None = None
    ) -> list[Any]:
        pool = await self._db()
        try:
            return list(await pool.fetch(sql, *params))
        except self._errors as exc:
            raise _translate(exc, op, repr(self), run_id=run_id) from exc

    async def _count(
        self, op: _Op, sql: str, params: Sequence[Any], *, run_id: str | None = None, step: int | None = None
    ) -> int:
        pool = self._pool
        if pool is None or self._loop is not asyncio.get_running_loop():
            pool = await self._open_for_loop()
        try:
            status: str = await pool.execute(sql, *params)
        except self._errors as exc:
            raise _translate(exc, op, repr(self), run_id=run_id, step=step) from exc
        # The command tag ends with the row count: "INSERT 0 1", "UPDATE 0", "DELETE 3".
        return int(status.rpartition(" ")[2])

    # ---------------------------------------------------------------- the step writer (WriterMixin)

    async def _take_conn(self, pool: Any) -> Any:
        return await pool.acquire()

    async def _give_conn(self, pool: Any, conn: Any, healthy: bool) -> None:
        # The pool's release waits out a cancelled statement and resets the connection.
        try:
            await pool.release(conn)
        except Exception:  # a connection that cannot be reset: the pool opens a new one when needed
            terminate(conn)

    def _conn_usable(self, conn: Any) -> bool:
        # The pool detaches a connection the server closed.
        try:
            return not conn.is_closed()
        except self._errors:
            return False

    def _keeps_conn(self, exc: BaseException, conn: Any) -> bool:
        # A server error leaves the connection idle and usable; a lost one is not kept.
        return isinstance(exc, self._server_errors) and self._conn_usable(conn)

    def _writer_error(self, exc: BaseException, run_id: str, step: int | None) -> StoreError:
        return _translate(exc, "save_step", repr(self), run_id=run_id, step=step)

    async def _write_one(self, p: Pending) -> int:
        sql = _STATEMENTS.insert_step if p.token is None else _INSERT_STEP_FENCED
        params = p.params
        status: str = await self._on_writer(lambda c: c.execute(sql, *params), run_id=p.run_id, step=p.step)
        # The command tag ends with the row count: "INSERT 0 1".
        return int(status.rpartition(" ")[2])

    async def _write_steps(self, batch: list[Pending]) -> None:
        """One step alone in `insert_step`; several in one statement (`_INSERT_STEPS`)."""
        if len(batch) == 1:
            await super()._write_steps(batch)
            return
        cols: tuple[list[Any], ...] = tuple([] for _ in range(12))
        for p in batch:
            for i in range(11):
                cols[i].append(p.params[i])
            cols[11].append(p.token)
        try:
            rows = await self._on_writer(
                lambda c: c.fetch(_INSERT_STEPS, *cols), run_id=batch[0].run_id, step=None
            )
        except Exception:  # a driver error, or a value the driver cannot encode
            # The statement wrote nothing, or (the connection lost after its commit) all it was
            # to write: one statement per step isolates the step at fault, and a step refused
            # there is compared with the stored one before it counts as a conflict.
            for p in batch:
                p.unsure = True
            await super()._write_steps(batch)
            return
        written = {row[0] for row in rows}
        for p in batch:
            p.done(1 if p.run_id in written else 0)

    # ---------------------------------------------------------------- grouped run writes

    async def _grouped(self, what: Grouped, batch: list[Pending]) -> set[str]:
        op: _Op = "create_run" if what == "runs" else "write"
        sql = _INSERT_RUNS if what == "runs" else _SET_STATUSES
        cols = [list(col) for col in zip(*group_rows(what, batch), strict=True)]
        rows = await self._fetch(op, sql, cols, run_id=batch[0].run_id)
        return {row[0] for row in rows}

    def _run_row(self, row: Sequence[Any]) -> RunRecord:
        return run_record(row, row[0], row[9].encode())

    def _meta(self, run: RunRecord) -> str:
        """`meta` must be UTF-8 JSON text (it is a json column); anything else is a `StoreError`."""
        return _meta_text(run)

    async def _branches_statement(
        self, rows: list[Sequence[Any]], runs: list[str], token: int | None
    ) -> tuple[str, Sequence[Any]]:
        cols: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [])
        for row in rows:
            for col, value in zip(cols, row, strict=True):
                col.append(value)
        if token is None:
            return _INSERT_BRANCHES, cols
        return _INSERT_BRANCHES_FENCED, (*cols, runs[0], token)

    # ---------------------------------------------------------------- retention

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete the run's steps and branch results below `step` in one statement; returns how
        many steps went. `StoreError` (nothing deleted) if `step` carries no state snapshot.
        """
        check_id(run_id)
        [(count, has_snapshot, has_steps)] = await self._fetch(
            "write", _DELETE_STEPS_BEFORE, (run_id, step), run_id=run_id
        )
        if not has_snapshot and has_steps:
            raise StoreError(
                f"run {run_id!r}: step {step} has no state snapshot; deleting the steps before it would "
                "leave the run unrebuildable",
                run_id=run_id,
                step=step,
            )
        return int(count)

    # ---------------------------------------------------------------- leases (LeaseStore)

    async def claim(self, run_id: str, worker: str, ttl: float) -> Lease | None:
        """Own `run_id` for `ttl` seconds with a new fencing token; None while another worker's
        lease is live. From now on this store's writes to the run are fenced by the token.
        Raises `StoreError` for an unknown run.
        """
        check_id(run_id)
        rows = await self._fetch("lease", _CLAIM, (run_id, worker, float(ttl)), run_id=run_id)
        return await self._claimed(run_id, worker, (rows[0][0], rows[0][1]) if rows else None)

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        """Extend a live lease to `ttl` seconds from now; `LeaseLostError` if it expired or was taken."""
        rows = await self._fetch(
            "lease", _RENEW, (lease.run_id, lease.token, float(ttl)), run_id=lease.run_id
        )
        if not rows:
            raise await self._lease_gone(lease)
        return lease._replace(expires_at=rows[0][0])

    async def release(self, lease: Lease) -> None:
        """Give the run up; its writes are no longer fenced here. No effect if the lease was lost."""
        self._let_go(lease)
        await self._count("lease", _RELEASE, (lease.run_id, lease.token), run_id=lease.run_id)

    async def _claim_branch_row(
        self, run_id: str, step: int, branch: int, worker: str, ttl: float
    ) -> tuple[int, float] | None:
        rows = await self._fetch("lease", _CLAIM_BRANCH, (run_id, step, branch, worker, ttl), run_id=run_id)
        return (int(rows[0][0]), float(rows[0][1])) if rows else None
