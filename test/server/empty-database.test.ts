import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from 'node:test'
import { initStore } from '../../src/server/open-store.ts'

it('a 0-byte database file is taken as a new database, and the log says so', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-empty-'))
  const file = join(dataDir, 'switchboard.db')
  writeFileSync(file, '')
  const warnings: unknown[][] = []
  const errors: unknown[][] = []
  const log = {
    warn: (...args: unknown[]) => warnings.push(args),
    error: (...args: unknown[]) => errors.push(args),
  }
  const store = await initStore({ dataDir, log })
  await store.ping()
  await store.close()
  assert.deepEqual(warnings, [
    [{ file }, 'the database file is empty (0 bytes): starting with a new database'],
  ])
  // Once it holds a database, it is no longer news.
  const again = await initStore({ dataDir, log })
  await again.close()
  assert.equal(warnings.length, 1)
  assert.deepEqual(errors, [])
  rmSync(dataDir, { recursive: true, force: true })
})
