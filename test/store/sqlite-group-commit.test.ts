import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type Database from 'better-sqlite3'
import { GroupCommit, openDatabase } from '../../src/store/sqlite/db.ts'

/**
 * The SQLite group commit runs a batch without savepoints and, when a write is refused, runs it
 * again with one per write: what callers see must be what a savepoint per write gives.
 */
describe('the SQLite group commit', () => {
  let dir: string
  let db: Database.Database
  let commit: GroupCommit
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-group-commit-'))
    db = openDatabase({ filename: join(dir, 'db.sqlite') })
    db.exec('CREATE TABLE rows (name TEXT PRIMARY KEY)')
    commit = new GroupCommit(db)
  })
  after(() => {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const insert = (name: string) => db.prepare('INSERT INTO rows (name) VALUES (?)').run(name)
  const names = (): string[] =>
    (db.prepare('SELECT name FROM rows ORDER BY name').all() as { name: string }[]).map((r) => r.name)

  it('runs each write once and commits them together when none is refused', async () => {
    db.exec('DELETE FROM rows')
    const runs = [0, 0, 0]
    const writes = ['a', 'b', 'c'].map((name, i) =>
      commit.write('insert', () => {
        runs[i]!++
        insert(name)
        return name.toUpperCase()
      }),
    )
    assert.deepEqual(await Promise.all(writes), ['A', 'B', 'C'])
    assert.deepEqual(runs, [1, 1, 1])
    assert.deepEqual(names(), ['a', 'b', 'c'])
  })

  it('rolls back a refused write alone, even what it wrote before it threw', async () => {
    db.exec('DELETE FROM rows')
    const first = commit.write('insert', () => insert('a'))
    const refused = commit.write('insert', () => {
      insert('b')
      throw new Error('refused after writing')
    })
    // The same key as the refused write's: it commits only if the refused row is gone.
    const third = commit.write('insert', () => insert('b'))
    const fourth = commit.write('insert', () => insert('d'))
    await first
    await assert.rejects(refused, /refused after writing/)
    await third
    await fourth
    assert.deepEqual(names(), ['a', 'b', 'd'])
  })

  it('gives the writes after a refused one what the writes before it left', async () => {
    db.exec('DELETE FROM rows')
    const seen: string[][] = []
    const first = commit.write('insert', () => insert('a'))
    const refused = commit.write('insert', () => {
      throw new Error('refused at once')
    })
    const reader = commit.write('read', () => {
      seen.push(names())
      insert('c')
    })
    await first
    await assert.rejects(refused, /refused at once/)
    await reader
    // Whichever run's answer is kept, it saw the first write and nothing of the refused one.
    assert.deepEqual(seen.at(-1), ['a'])
    assert.deepEqual(names(), ['a', 'c'])
  })

  it('refuses a write alone in its batch and keeps nothing of it', async () => {
    db.exec('DELETE FROM rows')
    await assert.rejects(
      commit.write('insert', () => {
        insert('x')
        throw new Error('alone')
      }),
      /alone/,
    )
    assert.deepEqual(names(), [])
    assert.equal(db.inTransaction, false)
  })

  it('fails a write that breaks a constraint alone, like any refusal', async () => {
    db.exec('DELETE FROM rows')
    const ok = commit.write('insert', () => insert('k'))
    const duplicate = commit.write('insert', () => insert('k'))
    await ok
    await assert.rejects(duplicate, /UNIQUE constraint failed/)
    assert.deepEqual(names(), ['k'])
  })
})
