/**
 * Forward-only migrations. Each runs in a transaction that records its number first; the store
 * refuses to open a database whose schema is newer than this list.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  /* 1: tasks, events, artifacts, push configs, the push outbox */ `
  CREATE TABLE tasks (
    id               TEXT PRIMARY KEY,
    tenant           TEXT NOT NULL,
    owner            TEXT NOT NULL,
    agent            TEXT NOT NULL,
    context_id       TEXT NOT NULL,
    state            TEXT NOT NULL,
    version          INTEGER NOT NULL,
    created_at       TEXT NOT NULL,
    status_at        TEXT NOT NULL,
    idempotency_key  TEXT,
    run_pending      INTEGER NOT NULL DEFAULT 1,
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    snapshot         TEXT NOT NULL
  );
  CREATE UNIQUE INDEX tasks_idempotency ON tasks (tenant, owner, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX tasks_by_status_time ON tasks (tenant, owner, agent, status_at DESC, id DESC);
  CREATE INDEX tasks_by_context ON tasks (tenant, owner, context_id);
  CREATE INDEX tasks_runnable ON tasks (created_at) WHERE run_pending = 1;

  CREATE TABLE events (
    task_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (task_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE artifacts (
    id      TEXT PRIMARY KEY,
    task_id TEXT NOT NULL,
    tenant  TEXT NOT NULL,
    owner   TEXT NOT NULL,
    meta    TEXT NOT NULL,
    bytes   BLOB
  );
  CREATE INDEX artifacts_by_task ON artifacts (task_id);

  CREATE TABLE push_configs (
    task_id    TEXT NOT NULL,
    id         TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    owner      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    target     TEXT NOT NULL,
    PRIMARY KEY (task_id, id)
  );

  CREATE TABLE deliveries (
    id               TEXT PRIMARY KEY,
    task_id          TEXT NOT NULL,
    seq              INTEGER NOT NULL,
    config_id        TEXT NOT NULL,
    target           TEXT NOT NULL,
    event            TEXT NOT NULL,
    task             TEXT NOT NULL,
    state            TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    next_attempt_at  INTEGER NOT NULL,
    claim_owner      TEXT,
    claim_expires_at INTEGER,
    last_error       TEXT,
    delivered_at     TEXT
  );
  CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX deliveries_order ON deliveries (task_id, config_id, seq) WHERE state = 'pending';
  CREATE INDEX deliveries_by_state ON deliveries (state, created_at);
  `,
  /* 2: artifacts keyed by their id alone (one B-tree instead of three per artifact); file bytes apart */ `
  CREATE TABLE artifacts_v2 (
    id      TEXT PRIMARY KEY,
    task_id TEXT NOT NULL,
    tenant  TEXT NOT NULL,
    owner   TEXT NOT NULL,
    meta    TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE artifact_bytes (
    id    TEXT PRIMARY KEY,
    bytes BLOB NOT NULL
  );
  INSERT INTO artifacts_v2 (id, task_id, tenant, owner, meta) SELECT id, task_id, tenant, owner, meta FROM artifacts;
  INSERT INTO artifact_bytes (id, bytes) SELECT id, bytes FROM artifacts WHERE bytes IS NOT NULL;
  DROP TABLE artifacts;
  ALTER TABLE artifacts_v2 RENAME TO artifacts;
  `,
  /* 3: one events row per append, keyed by its last seq, its body a JSON array: each old row is a batch of one */ `
  UPDATE events SET body = '[' || body || ']';
  `,
  /* 4: A2A targets hear of artifacts by their own flag, no longer by their kind: stored ones get it */ `
  UPDATE push_configs SET target = json_set(target, '$.artifacts', json('true'))
  WHERE json_extract(target, '$.kind') = 'a2a' AND json_type(target, '$.artifacts') IS NULL;
  `,
  /* 5: API keys, by the SHA-256 of the key (never the key); revoked ones stay, with revoked_at */ `
  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    hash       TEXT NOT NULL,
    principal  TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    scopes     TEXT NOT NULL,
    label      TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE UNIQUE INDEX api_keys_by_hash ON api_keys (hash);
  `,
  /*
   * 6: idempotency keys in a table of their own, with the fingerprint of their request and the
   * time they were recorded (ms), so a window can expire them and a reuse for another request is
   * told apart. Keys already stored move over without a fingerprint (they match any request) and
   * dated by their task. tasks.idempotency_key stays, unused: dropping it would rewrite every task row.
   */ `
  CREATE TABLE idempotency_keys (
    tenant          TEXT NOT NULL,
    owner           TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    fingerprint     TEXT,
    task_id         TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, idempotency_key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
  INSERT INTO idempotency_keys (tenant, owner, idempotency_key, fingerprint, task_id, created_at)
    SELECT tenant, owner, idempotency_key, NULL, id,
      CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER)
    FROM tasks WHERE idempotency_key IS NOT NULL;
  DROP INDEX tasks_idempotency;
  `,
  /*
   * 7: an artifact row is the way to its artifact event (the task and the event's seq), no longer
   * a third copy of the artifact: its JSON was written in the event, in the snapshot and here. One
   * pass over the events rows that hold an artifact event (instr() first: the others are not
   * parsed) gives each row its event's seq. A row with no artifact event (none can be: the store
   * writes both in one transaction) could not be read, and is dropped.
   */ `
  CREATE TABLE artifacts_v3 (
    id      TEXT PRIMARY KEY,
    task_id TEXT NOT NULL,
    seq     INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO artifacts_v3 (id, task_id, seq)
    SELECT a.id, a.task_id, e.value ->> '$.seq'
    FROM events, json_each(events.body) e
    JOIN artifacts a ON a.id = e.value ->> '$.artifact.id' AND a.task_id = events.task_id
    WHERE instr(events.body, '"kind":"artifact"') > 0 AND e.value ->> '$.kind' = 'artifact';
  DROP TABLE artifacts;
  ALTER TABLE artifacts_v3 RENAME TO artifacts;
  `,
  /*
   * 8: a task row may keep its artifacts (past 2 KB) apart from its snapshot, at a version of
   * their own that may be older than the snapshot's: a status change no longer writes out again
   * the artifacts its events row already holds (see storedArtifacts in snapshot.ts). NULL, as
   * in every row from before and every row with small artifacts: the snapshot holds them. Added
   * columns rewrite no row.
   */ `
  ALTER TABLE tasks ADD COLUMN artifacts TEXT;
  ALTER TABLE tasks ADD COLUMN artifacts_version INTEGER;
  `,
]
