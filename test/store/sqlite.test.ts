import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after } from 'node:test'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { storeContract } from './contract.ts'

// One temporary directory for the file, one database file per case.
const dir = mkdtempSync(join(tmpdir(), 'switchboard-sqlite-'))
let n = 0
after(() => rmSync(dir, { recursive: true, force: true }))

storeContract('sqlite', async () => {
  n += 1
  return new SqliteStore({ filename: join(dir, `store-${n}.db`) })
})
