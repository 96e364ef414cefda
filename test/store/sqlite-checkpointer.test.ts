/**
 * The SQLite store's WAL checkpoints run on a worker thread: the main connection's automatic
 * checkpoint is off, the worker copies the WAL into the database file, a WAL the worker cannot
 * catch up with is checkpointed once on the main thread, a failing worker hands the checkpoints
 * back to SQLite, and neither an open store nor a closed one leaves anything behind.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type Database from 'better-sqlite3'
import { newId } from '../../src/model/ids.ts'
import { nowIso } from '../../src/model/time.ts'
import type { CreateTaskRequest } from '../../src/store/contract.ts'
import { Checkpointer } from '../../src/store/sqlite/checkpointer.ts'
import { openDatabase } from '../../src/store/sqlite/db.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-checkpointer-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

/** A database with a table of 1 KiB rows; `pragmas` records every pragma the checkpointer runs on it. */
const open = (name: string): { db: Database.Database; file: string; pragmas: string[] } => {
  const file = join(dir, name)
  const raw = openDatabase({ filename: file })
  raw.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  const pragmas: string[] = []
  const db = new Proxy(raw, {
    get(target, key, receiver) {
      if (key === 'pragma') {
        return (source: string, options?: Database.PragmaOptions) => {
          pragmas.push(source)
          return target.pragma(source, options)
        }
      }
      const value = Reflect.get(target, key, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { db, file, pragmas }
}

/** `count` rows of 1 KiB in one transaction: about count / 4 pages in the WAL. */
const write = (db: Database.Database, count: number): void => {
  const insert = db.prepare('INSERT INTO rows (body) VALUES (?)')
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run('x'.repeat(1024))
  })()
}

const sizeOf = (file: string): number => statSync(file).size

const newTask = (): CreateTaskRequest => ({
  header: { id: newId(), tenant: 't', owner: 'o', agent: 'a', contextId: newId(), createdAt: nowIso() },
  input: {},
})

describe('SQLite WAL checkpoints on a worker thread', () => {
  it('turn the main connection’s automatic checkpoint off and copy the WAL into the file', async () => {
    const { db, file } = open('copies.db')
    const checkpointer = new Checkpointer(db, { filename: file, synchronous: 'NORMAL', everyMs: 0 })
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0)
    const before = sizeOf(file)
    write(db, 4_000)
    // Nothing copied it yet: SQLite's own checkpoint would have, in the COMMIT, past 1,000 frames.
    assert.equal(sizeOf(file), before)
    checkpointer.committed()
    await checkpointer.settled()
    assert.ok(sizeOf(file) >= before + 4_000 * 1024, `${sizeOf(file)} bytes after the checkpoint`)
    await checkpointer.stop()
    db.close()
  })

  it('checkpoint once on the main thread when the worker reports the WAL past its bound', async () => {
    const { db, file, pragmas } = open('bound.db')
    const checkpointer = new Checkpointer(db, {
      filename: file,
      synchronous: 'NORMAL',
      walBoundFrames: 100,
      everyMs: 0,
    })
    write(db, 1_000)
    checkpointer.committed()
    await checkpointer.settled()
    const inline = () => pragmas.filter((p) => p === 'wal_checkpoint(PASSIVE)').length
    assert.equal(inline(), 0, 'the worker did the copying so far')
    write(db, 10)
    checkpointer.committed()
    assert.equal(inline(), 1, 'the next commit checkpointed on its own thread')
    write(db, 10)
    checkpointer.committed()
    assert.equal(inline(), 1, 'once, until the worker reports again')
    await checkpointer.settled()
    await checkpointer.stop()
    db.close()
  })

  it('keep a WAL’s file when it starts over, so the next cycle rewrites it in place', async () => {
    const { db, file } = open('kept.db')
    const checkpointer = new Checkpointer(db, { filename: file, synchronous: 'NORMAL', everyMs: 0 })
    // About 6,000 frames (24 MiB): under the bound, past what the WAL was once cut back to (16 MiB).
    write(db, 24_000)
    const grown = sizeOf(`${file}-wal`)
    assert.ok(grown > 24 * 1024 * 1024, `${grown} bytes of WAL`)
    checkpointer.committed()
    await checkpointer.settled()
    // The worker copied every frame: this commit starts the WAL over, at its first frame.
    write(db, 10)
    assert.equal(sizeOf(`${file}-wal`), grown, 'the file is kept, not cut back and grown again')
    await checkpointer.stop()
    db.close()
  })

  it('hand the checkpoints back to SQLite when the worker fails', async () => {
    const { db } = open('fails.db')
    const failures: Error[] = []
    const checkpointer = new Checkpointer(db, {
      // The worker opens the file with fileMustExist: this one does not.
      filename: join(dir, 'missing', 'nothing.db'),
      synchronous: 'NORMAL',
      everyMs: 0,
      onFailure: (error) => failures.push(error),
    })
    checkpointer.committed()
    await checkpointer.settled()
    assert.equal(failures.length, 1)
    const [error] = failures as [Error]
    assert.match(error.message, /nothing\.db|unable to open|directory does not exist/i)
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000)
    db.close()
  })

  it('a closed store leaves no WAL behind: the worker’s connection closes first', async () => {
    const file = join(dir, 'closed.db')
    const store = new SqliteStore({ filename: file })
    // Writes past the first 100 ms after opening: the last one's commit has started the worker.
    const opened = performance.now()
    while (performance.now() - opened < 150) await store.createTask(newTask())
    await store.close()
    assert.equal(existsSync(`${file}-wal`), false)
  })

  it('a store left open does not keep the process alive', { timeout: 60_000 }, async () => {
    const file = join(dir, 'left-open.db')
    const script = `
      import { SqliteStore } from ${JSON.stringify(new URL('../../src/store/sqlite/sqlite-store.ts', import.meta.url).pathname)}
      import { randomUUID } from 'node:crypto'
      const store = new SqliteStore({ filename: ${JSON.stringify(file)} })
      const opened = performance.now()
      const header = ${JSON.stringify(newTask().header)}
      while (performance.now() - opened < 150)
        await store.createTask({ header: { ...header, id: randomUUID() }, input: {} })
      console.log('done')
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    assert.equal(code, 0)
    assert.equal(out.trim(), 'done')
  })
})
