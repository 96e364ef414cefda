import { join } from 'node:path'
import Database from 'better-sqlite3'

/**
 * The least a durable server writes: each task once, its final JSON in one row, committed in
 * groups (every write of one event-loop turn in one transaction, WAL and `synchronous=NORMAL`
 * as Switchboard's default store) before anyone is answered. No events, no secondary indexes;
 * GetTask reads the row back by its key.
 */
export class FloorStore {
  readonly #db: Database.Database
  readonly #insert: Database.Statement
  readonly #select: Database.Statement<[string], { body: string }>
  readonly #commit: (rows: readonly [string, string][]) => void
  #pending: { id: string; body: string; done: () => void }[] = []

  constructor(dataDir: string) {
    this.#db = new Database(join(dataDir, 'floor.db'))
    this.#db.pragma('journal_mode = WAL')
    this.#db.pragma('synchronous = NORMAL')
    this.#db.exec('CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, body TEXT NOT NULL)')
    this.#insert = this.#db.prepare('INSERT INTO tasks (id, body) VALUES (?, ?)')
    this.#select = this.#db.prepare('SELECT body FROM tasks WHERE id = ?')
    this.#commit = this.#db.transaction((rows: readonly [string, string][]) => {
      for (const [id, body] of rows) this.#insert.run(id, body)
    })
  }

  /** Resolves once the task's row is committed. */
  write(id: string, task: object): Promise<void> {
    return new Promise((done) => {
      this.#pending.push({ id, body: JSON.stringify(task), done })
      if (this.#pending.length === 1) setImmediate(() => this.#flush())
    })
  }

  /** The task as written (GetTask). */
  read(id: string): Promise<object | undefined> {
    const row = this.#select.get(id)
    return Promise.resolve(row && (JSON.parse(row.body) as object))
  }

  #flush(): void {
    const batch = this.#pending
    this.#pending = []
    this.#commit(batch.map((w): [string, string] => [w.id, w.body]))
    for (const write of batch) write.done()
  }

  close(): void {
    this.#db.close()
  }
}
