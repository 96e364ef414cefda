import pg from 'pg'

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS tasks (id text PRIMARY KEY, state text NOT NULL, body jsonb NOT NULL);
  CREATE TABLE IF NOT EXISTS events (
    task_id text NOT NULL, seq integer NOT NULL, body jsonb NOT NULL, PRIMARY KEY (task_id, seq)
  );`

/** The events a task's lifecycle logs: it is submitted, works, and completes. */
const LIFECYCLE = [
  '{"kind":"status","state":"SUBMITTED"}',
  '{"kind":"status","state":"WORKING"}',
  '{"kind":"status","state":"COMPLETED"}',
]

/**
 * The anchor lifecycle on PostgreSQL, the least a durable PostgreSQL server writes per task: four
 * inserts (the task row, and its three status events) and one update (the final task), the
 * writes of one event-loop turn in one transaction sent in one round trip, committed before
 * anyone is answered. Only primary keys, no outbox, no idempotency record; GetTask reads the task
 * row by its key. The database CPU it costs per task is what Switchboard PostgreSQL's is judged
 * against.
 */
export class PgLifecycleFloor {
  readonly #client: pg.Client
  #pending: { id: string; body: string; done: () => void; fail: (error: unknown) => void }[] = []
  #flushing = false

  private constructor(client: pg.Client) {
    this.#client = client
  }

  static async open(url: string): Promise<PgLifecycleFloor> {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(SCHEMA)
    return new PgLifecycleFloor(client)
  }

  /** Resolves once the task's lifecycle is committed. */
  write(id: string, task: object): Promise<void> {
    return new Promise((done, fail) => {
      this.#pending.push({ id, body: JSON.stringify(task), done, fail })
      if (this.#pending.length === 1 && !this.#flushing) setImmediate(() => void this.#flush())
    })
  }

  /** The final task as written (GetTask). */
  async read(id: string): Promise<object | undefined> {
    const result = await this.#client.query<{ body: object }>('SELECT body FROM tasks WHERE id = $1', [id])
    return result.rows[0]?.body
  }

  /** One batch at a time on the one connection; what arrives meanwhile is the next batch. */
  async #flush(): Promise<void> {
    this.#flushing = true
    while (this.#pending.length > 0) {
      const batch = this.#pending
      this.#pending = []
      const literal = (value: string) => this.#client.escapeLiteral(value)
      const statements = batch.flatMap(({ id, body }) => [
        `INSERT INTO tasks (id, state, body) VALUES (${literal(id)}, 'SUBMITTED', '{}')`,
        ...LIFECYCLE.map(
          (event, i) =>
            `INSERT INTO events (task_id, seq, body) VALUES (${literal(id)}, ${i + 1}, '${event}')`,
        ),
        `UPDATE tasks SET state = 'COMPLETED', body = ${literal(body)} WHERE id = ${literal(id)}`,
      ])
      try {
        // A simple query of several statements: one round trip for the whole batch.
        await this.#client.query(`BEGIN; ${statements.join('; ')}; COMMIT`)
        for (const write of batch) write.done()
      } catch (error) {
        await this.#client.query('ROLLBACK').catch(() => undefined)
        for (const write of batch) write.fail(error)
      }
    }
    this.#flushing = false
  }

  close(): Promise<void> {
    return this.#client.end()
  }
}
