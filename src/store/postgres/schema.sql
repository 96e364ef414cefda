-- Switchboard PostgreSQL schema after the last migration (src/store/postgres/migrations.ts),
-- dumped with pg_dump --schema-only for the default schema name "switchboard". Not executed:
-- migrations are the source of truth; this file shows reviewers what each migration changes.
-- Regenerate after adding a migration; a test fails when a table or index is missing here.

CREATE SCHEMA switchboard;

CREATE TABLE switchboard.api_keys (
    id text NOT NULL,
    hash text NOT NULL,
    principal text NOT NULL,
    tenant text NOT NULL,
    scopes json NOT NULL,
    label text,
    created_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone
);

CREATE TABLE switchboard.artifacts (
    id text NOT NULL,
    task_id text NOT NULL,
    bytes bytea,
    seq integer NOT NULL
);

CREATE TABLE switchboard.deliveries (
    id text NOT NULL,
    task_id text NOT NULL,
    seq integer NOT NULL,
    config_id text NOT NULL,
    target json NOT NULL,
    event json NOT NULL,
    task json NOT NULL,
    state text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    claim_owner text,
    claim_expires_at timestamp with time zone,
    last_error text,
    delivered_at timestamp with time zone,
    CONSTRAINT deliveries_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'delivered'::text, 'dead'::text])))
);

CREATE TABLE switchboard.events (
    task_id text NOT NULL,
    seq integer NOT NULL,
    body json NOT NULL
);

CREATE TABLE switchboard.idempotency_keys (
    tenant text NOT NULL,
    owner text NOT NULL,
    idempotency_key text NOT NULL,
    fingerprint text,
    task_id text NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE TABLE switchboard.migrations (
    version integer NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE switchboard.push_configs (
    task_id text NOT NULL,
    id text NOT NULL,
    tenant text NOT NULL,
    owner text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    target json NOT NULL
);

CREATE TABLE switchboard.tasks (
    id text NOT NULL,
    tenant text NOT NULL,
    owner text NOT NULL,
    agent text NOT NULL,
    context_id text NOT NULL,
    state text NOT NULL,
    version integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    status_at timestamp with time zone NOT NULL,
    run_pending boolean DEFAULT true NOT NULL,
    lease_owner text,
    lease_expires_at timestamp with time zone,
    snapshot json NOT NULL
);

ALTER TABLE ONLY switchboard.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

ALTER TABLE ONLY switchboard.artifacts
    ADD CONSTRAINT artifacts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY switchboard.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id);

ALTER TABLE ONLY switchboard.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (task_id, seq);

ALTER TABLE ONLY switchboard.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant, owner, idempotency_key);

ALTER TABLE ONLY switchboard.migrations
    ADD CONSTRAINT migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY switchboard.push_configs
    ADD CONSTRAINT push_configs_pkey PRIMARY KEY (task_id, id);

ALTER TABLE ONLY switchboard.tasks
    ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);

CREATE UNIQUE INDEX api_keys_by_hash ON switchboard.api_keys USING btree (hash);

CREATE INDEX deliveries_by_state ON switchboard.deliveries USING btree (state, created_at);

CREATE INDEX deliveries_by_task ON switchboard.deliveries USING btree (task_id, created_at);

CREATE INDEX deliveries_due ON switchboard.deliveries USING btree (next_attempt_at) WHERE (state = 'pending'::text);

CREATE INDEX deliveries_order ON switchboard.deliveries USING btree (task_id, config_id, seq) WHERE (state = 'pending'::text);

CREATE INDEX idempotency_keys_by_age ON switchboard.idempotency_keys USING btree (created_at);

CREATE INDEX tasks_by_agent ON switchboard.tasks USING btree (tenant, owner, agent, status_at DESC, id DESC);

CREATE INDEX tasks_by_context ON switchboard.tasks USING btree (tenant, owner, context_id);

CREATE INDEX tasks_by_status_time ON switchboard.tasks USING btree (tenant, owner, status_at DESC, id DESC);

CREATE INDEX tasks_runnable ON switchboard.tasks USING btree (created_at, id) WHERE run_pending;
