/**
 * Forward-only migrations, numbered by their position (1, 2, …). Each is a function of the quoted
 * schema name so no identifier is hard-coded: a deployment may keep several Switchboards in one
 * database. schema.sql beside this file is the dump of the schema after the last one.
 *
 * Snapshots, events, targets and delivery bodies are `json`, not `jsonb`: they are written once
 * and read whole, never searched, so jsonb's parsing buys nothing, while `json` keeps the exact
 * text (key order) and accepts every string JSON can carry; jsonb refuses "\u0000", which a
 * client could put in its input. Operators can still query them with -> and ->>.
 * Times the database decides (leases, claims, retries) are timestamptz compared with now(): one
 * clock for every replica.
 */
export const POSTGRES_MIGRATIONS: readonly ((schema: string) => string)[] = [
  /* 1: tasks, events, artifacts, push configs, the push outbox */
  (s) => `
  CREATE TABLE ${s}.tasks (
    id               text PRIMARY KEY,
    tenant           text NOT NULL,
    owner            text NOT NULL,
    agent            text NOT NULL,
    context_id       text NOT NULL,
    state            text NOT NULL,
    version          integer NOT NULL,
    created_at       timestamptz NOT NULL,
    status_at        timestamptz NOT NULL,
    idempotency_key  text,
    run_pending      boolean NOT NULL DEFAULT true,
    lease_owner      text,
    lease_expires_at timestamptz,
    snapshot         json NOT NULL
  );
  CREATE UNIQUE INDEX tasks_idempotency ON ${s}.tasks (tenant, owner, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX tasks_by_status_time ON ${s}.tasks (tenant, owner, status_at DESC, id DESC);
  CREATE INDEX tasks_by_agent ON ${s}.tasks (tenant, owner, agent, status_at DESC, id DESC);
  CREATE INDEX tasks_by_context ON ${s}.tasks (tenant, owner, context_id);
  CREATE INDEX tasks_runnable ON ${s}.tasks (created_at, id) WHERE run_pending;

  CREATE TABLE ${s}.events (
    task_id text NOT NULL REFERENCES ${s}.tasks (id),
    seq     integer NOT NULL,
    body    json NOT NULL,
    PRIMARY KEY (task_id, seq)
  );

  CREATE TABLE ${s}.artifacts (
    id      text PRIMARY KEY,
    task_id text NOT NULL REFERENCES ${s}.tasks (id),
    tenant  text NOT NULL,
    owner   text NOT NULL,
    meta    json NOT NULL,
    bytes   bytea
  );
  CREATE INDEX artifacts_by_task ON ${s}.artifacts (task_id);

  CREATE TABLE ${s}.push_configs (
    task_id    text NOT NULL REFERENCES ${s}.tasks (id),
    id         text NOT NULL,
    tenant     text NOT NULL,
    owner      text NOT NULL,
    created_at timestamptz NOT NULL,
    target     json NOT NULL,
    PRIMARY KEY (task_id, id)
  );

  CREATE TABLE ${s}.deliveries (
    id               text PRIMARY KEY,
    task_id          text NOT NULL REFERENCES ${s}.tasks (id),
    seq              integer NOT NULL,
    config_id        text NOT NULL,
    target           json NOT NULL,
    event            json NOT NULL,
    task             json NOT NULL,
    state            text NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts         integer NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    next_attempt_at  timestamptz NOT NULL,
    claim_owner      text,
    claim_expires_at timestamptz,
    last_error       text,
    delivered_at     timestamptz
  );
  CREATE INDEX deliveries_due ON ${s}.deliveries (next_attempt_at) WHERE state = 'pending';
  CREATE INDEX deliveries_order ON ${s}.deliveries (task_id, config_id, seq) WHERE state = 'pending';
  CREATE INDEX deliveries_by_state ON ${s}.deliveries (state, created_at);
  CREATE INDEX deliveries_by_task ON ${s}.deliveries (task_id, created_at);
  `,
  /* 2: no index on artifacts by task: nothing reads them that way, and every artifact paid for it */
  (s) => `DROP INDEX IF EXISTS ${s}.artifacts_by_task;`,
  /*
   * 3: A2A targets hear of artifacts by their own flag, no longer by their kind: stored ones get it.
   * Spliced into the text, not merged as jsonb, which would reorder the keys and refuses "\u0000".
   */
  (s) => `UPDATE ${s}.push_configs
    SET target = regexp_replace(target::text, '[}][[:space:]]*$', ',"artifacts":true}')::json
    WHERE target->>'kind' = 'a2a' AND target->'artifacts' IS NULL;`,
  /* 4: API keys, by the SHA-256 of the key (never the key); revoked ones stay, with revoked_at */
  (s) => `
  CREATE TABLE ${s}.api_keys (
    id         text PRIMARY KEY,
    hash       text NOT NULL,
    principal  text NOT NULL,
    tenant     text NOT NULL,
    scopes     json NOT NULL,
    label      text,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
  );
  CREATE UNIQUE INDEX api_keys_by_hash ON ${s}.api_keys (hash);
  `,
  /*
   * 5: idempotency keys in a table of their own, with the fingerprint of their request and the
   * time they were recorded, so a window can expire them and a reuse for another request is told
   * apart. Keys already stored move over without a fingerprint (they match any request), dated by
   * their task. Not compatible with the previous version's code, which writes tasks.idempotency_key.
   */
  (s) => `
  CREATE TABLE ${s}.idempotency_keys (
    tenant          text NOT NULL,
    owner           text NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint     text,
    task_id         text NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant, owner, idempotency_key)
  );
  CREATE INDEX idempotency_keys_by_age ON ${s}.idempotency_keys (created_at);
  INSERT INTO ${s}.idempotency_keys (tenant, owner, idempotency_key, fingerprint, task_id, created_at)
    SELECT tenant, owner, idempotency_key, NULL, id, created_at FROM ${s}.tasks
    WHERE idempotency_key IS NOT NULL;
  DROP INDEX ${s}.tasks_idempotency;
  ALTER TABLE ${s}.tasks DROP COLUMN idempotency_key;
  `,
  /*
   * 6: one events row per write, keyed by its last event's seq, its body their JSON array (as in
   * SQLite): each stored row becomes a batch of one, its text kept as written. Rewrites every event
   * row once; the previous version's code cannot read the new rows.
   */
  (s) => `UPDATE ${s}.events SET body = ('[' || body::text || ']')::json;`,
  /*
   * 7: no foreign keys from a task's events, artifacts, push configs and deliveries to the task.
   * Each of those rows is written by a statement that writes or locks its task row (the group
   * commit inserts them only for the tasks it wrote; a push config locks its task FOR KEY SHARE),
   * and retention deletes them with their task, so every check only repeated what the statement
   * had just established: a tenth of the database's CPU per send.
   */
  (s) => `
  ALTER TABLE ${s}.events DROP CONSTRAINT IF EXISTS events_task_id_fkey;
  ALTER TABLE ${s}.artifacts DROP CONSTRAINT IF EXISTS artifacts_task_id_fkey;
  ALTER TABLE ${s}.push_configs DROP CONSTRAINT IF EXISTS push_configs_task_id_fkey;
  ALTER TABLE ${s}.deliveries DROP CONSTRAINT IF EXISTS deliveries_task_id_fkey;
  `,
  /*
   * 8: an artifact row is the way to its artifact event (the task and the event's seq) and its
   * file bytes, no longer a copy of the artifact with its task's tenant and owner: the artifact's
   * JSON was written in the event, in the snapshot and here. Each row's seq is its artifact
   * event's, from one pass over the events rows that hold an artifact event; a row with none (none
   * can be: the store writes both in one statement) could not be read, and is dropped. The
   * previous version's code writes the dropped columns: stop it before the first new replica.
   */
  (s) => `
  ALTER TABLE ${s}.artifacts ADD COLUMN seq integer;
  UPDATE ${s}.artifacts a SET seq = found.seq
    FROM (
      SELECT events.task_id, e.value->'artifact'->>'id' AS id, (e.value->>'seq')::integer AS seq
      FROM ${s}.events, json_array_elements(events.body) AS e(value)
      WHERE strpos(events.body::text, '"kind":"artifact"') > 0 AND e.value->>'kind' = 'artifact'
    ) found
    WHERE found.id = a.id AND found.task_id = a.task_id;
  DELETE FROM ${s}.artifacts WHERE seq IS NULL;
  ALTER TABLE ${s}.artifacts ALTER COLUMN seq SET NOT NULL,
    DROP COLUMN tenant, DROP COLUMN owner, DROP COLUMN meta;
  `,
]
