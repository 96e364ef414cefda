/**
 * Push credentials at rest: what the backends hold is ciphertext, every reader gets the target back
 * as given, rotation keeps old rows readable, and a seal that does not open fails that delivery.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import type { A2aPushTarget } from '../../src/dialects/a2a/push-target.ts'
import type { Store } from '../../src/store/contract.ts'
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts'
import { SealedStore } from '../../src/store/sealed-store.ts'
import { keyringOf, openTarget, sealTarget } from '../../src/store/sealing.ts'
import { SqliteDatabase as Database } from '../../src/store/sqlite/driver.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { rawTargets } from '../helpers/push-secrets.ts'
import { A2A, CLAWPEDIA, create, SCOPE, status } from './contract/fixtures.ts'

const newKey = (): string => randomBytes(32).toString('base64')
const OLD = newKey()
const NEW = newKey()
const SECRET_TARGET: A2aPushTarget = {
  kind: 'a2a',
  url: 'https://hooks.example.com/secret',
  token: 'tok-very-secret-1',
  authentication: { scheme: 'Bearer', credentials: 'cred-very-secret-2' },
  artifacts: true,
}
const SECRETS = ['tok-very-secret-1', 'cred-very-secret-2', CLAWPEDIA.authHeader!, A2A.token!]

/** Writes credentials through every write path: creation, an append, putPushConfig. */
const writeEverywhere = async (store: Store): Promise<string> => {
  const { task } = await create(store, { pushTargets: [SECRET_TARGET, CLAWPEDIA] })
  await store.append({ taskId: task.id, events: [status('WORKING')], pushTargets: [A2A] })
  await store.putPushConfig(SCOPE, {
    id: 'cfg-put',
    taskId: task.id,
    createdAt: new Date().toISOString(),
    target: { ...SECRET_TARGET, url: 'https://hooks.example.com/put' } as A2aPushTarget,
  })
  return task.id
}

/** Every promise above, read back: through the decorator, the targets are as given. */
const assertReadsBack = async (store: Store, taskId: string): Promise<void> => {
  const configs = await store.listPushConfigs(SCOPE, taskId)
  assert.deepEqual(
    configs.map((c) => c.target),
    [SECRET_TARGET, CLAWPEDIA, A2A, { ...SECRET_TARGET, url: 'https://hooks.example.com/put' }],
  )
  assert.deepEqual((await store.getPushConfig(SCOPE, taskId, 'cfg-put'))?.target, {
    ...SECRET_TARGET,
    url: 'https://hooks.example.com/put',
  })
  const deliveries = await store.listDeliveries({ taskId, limit: 100 })
  assert.ok(deliveries.some((d) => (d.target as A2aPushTarget).token === SECRET_TARGET.token))
  const claimed = await store.claimDeliveries({ owner: 'w', limit: 100, ttlMs: 60_000 })
  assert.ok(claimed.length > 0)
  for (const delivery of claimed) assert.ok(!('sealed' in delivery.target))
  assert.ok(claimed.some((d) => d.target.kind === 'clawpedia' && 'authHeader' in d.target))
}

/**
 * The sealed blobs are set aside before the search: they are base64url ciphertext, which spells a
 * short fixture such as `tok` by chance once in a few hundred runs. A credential leaked in
 * clear, even inside a malformed blob, still shows: JSON escapes stop the blob pattern at its quotes.
 */
const SEALED_BLOB = /"sealed":"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/g
const assertNoCredential = (dump: string): void => {
  assert.match(dump, /"sealed":"v1\./)
  const clear = dump.replace(SEALED_BLOB, '"sealed":"…"')
  for (const secret of SECRETS) assert.ok(!clear.includes(secret), `the raw rows hold "${secret}"`)
  assert.match(dump, /hooks\.example\.com\/secret/, 'kind and url stay in clear')
}

describe('sealed store: the check for credentials at rest', () => {
  it('takes ciphertext that spells a fixture by chance for what it is, and finds a credential in clear', () => {
    const row = (sealed: string) =>
      `{"kind":"a2a","url":"https://hooks.example.com/secret","sealed":"${sealed}"}`
    assert.doesNotThrow(() => assertNoCredential(row('v1.k1.aXZ.Qtok_9')))
    assert.throws(() => assertNoCredential(row('v1.k1.aXZ.Qtok_9').replace('}', ',"token":"tok"}')), /"tok"/)
    assert.throws(() => assertNoCredential(row('v1.k1.{\\"token\\":\\"tok\\"}')), /"tok"/)
  })
})

describe('sealed store (SQLite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-sealed-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  let n = 0
  const open = async (keys: string[]) => {
    n += 1
    const filename = join(dir, `s-${n}.db`)
    const store = new SealedStore(new SqliteStore({ filename }), keyringOf(keys))
    await store.init()
    return { store, filename }
  }

  it('push configs and outbox rows hold no credential; every reader gets the target as given', async () => {
    const { store, filename } = await open([OLD])
    try {
      const taskId = await writeEverywhere(store)
      assertNoCredential(rawTargets(filename))
      await assertReadsBack(store, taskId)
    } finally {
      await store.close()
    }
  })

  it('after a rotation (new key first, old one kept) old rows still open, new rows use the new key', async () => {
    const { store, filename } = await open([OLD])
    const taskId = await writeEverywhere(store)
    await store.close()
    const rotated = new SealedStore(new SqliteStore({ filename }), keyringOf([NEW, OLD]))
    await rotated.init()
    try {
      await assertReadsBack(rotated, taskId)
      const { task } = await create(rotated, { pushTargets: [SECRET_TARGET] })
      const newId = keyringOf([NEW]).keys[0]!.id
      const db = new Database(filename, { readonly: true })
      const row = db.prepare('SELECT target FROM push_configs WHERE task_id = ?').get(task.id) as {
        target: string
      }
      db.close()
      assert.match(row.target, new RegExp(`"sealed":"v1\\.${newId}\\.`))
    } finally {
      await rotated.close()
    }
  })

  it('rows stored before encryption was on are read as they are', async () => {
    n += 1
    const filename = join(dir, `plain-${n}.db`)
    const plain = new SqliteStore({ filename })
    await plain.init()
    const { task } = await create(plain, { pushTargets: [SECRET_TARGET] })
    await plain.close()
    const store = new SealedStore(new SqliteStore({ filename }), keyringOf([OLD]))
    await store.init()
    try {
      assert.deepEqual((await store.listPushConfigs(SCOPE, task.id))[0]?.target, SECRET_TARGET)
      const [delivery] = await store.claimDeliveries({ owner: 'w', limit: 10, ttlMs: 60_000 })
      assert.deepEqual(delivery?.target, SECRET_TARGET)
    } finally {
      await store.close()
    }
  })

  it('a tampered seal, one moved to another URL, or an unknown key: that delivery goes dead with the reason, the others are delivered', async () => {
    const { store, filename } = await open([OLD])
    try {
      const tampered = await create(store, {
        pushTargets: [{ ...SECRET_TARGET, url: 'https://a.example/t' }],
      })
      const moved = await create(store, { pushTargets: [{ ...SECRET_TARGET, url: 'https://a.example/m' }] })
      const foreign = await create(store, { pushTargets: [{ ...SECRET_TARGET, url: 'https://a.example/f' }] })
      const fine = await create(store, { pushTargets: [SECRET_TARGET] })
      const db = new Database(filename)
      const edit = (taskId: string, change: (target: Record<string, string>) => void) => {
        for (const table of ['push_configs', 'deliveries']) {
          const rows = db.prepare(`SELECT rowid, target FROM ${table} WHERE task_id = ?`).all(taskId) as {
            rowid: number
            target: string
          }[]
          for (const row of rows) {
            const target = JSON.parse(row.target) as Record<string, string>
            change(target)
            db.prepare(`UPDATE ${table} SET target = ? WHERE rowid = ?`).run(
              JSON.stringify(target),
              row.rowid,
            )
          }
        }
      }
      edit(tampered.task.id, (t) => {
        const body = t.sealed!.split('.')
        body[3] = `${body[3]!.slice(0, -2)}${body[3]!.endsWith('AA') ? 'BB' : 'AA'}`
        t.sealed = body.join('.')
      })
      edit(moved.task.id, (t) => {
        t.url = 'https://attacker.example/hook'
      })
      const otherKeySeal = sealTarget(keyringOf([NEW]), { ...SECRET_TARGET, url: 'https://a.example/f' })
      edit(foreign.task.id, (t) => {
        t.sealed = (otherKeySeal as unknown as { sealed: string }).sealed
      })
      db.close()

      const claimed = await store.claimDeliveries({ owner: 'w', limit: 10, ttlMs: 60_000 })
      assert.deepEqual(
        claimed.map((d) => d.taskId),
        [fine.task.id],
      )
      const dead = await store.listDeliveries({ state: 'dead', limit: 10 })
      const reasonOf = (taskId: string) => dead.find((d) => d.taskId === taskId)?.lastError
      assert.match(reasonOf(tampered.task.id) ?? '', /do not open: the sealed value was altered/)
      assert.match(reasonOf(moved.task.id) ?? '', /belongs to another target/)
      assert.match(reasonOf(foreign.task.id) ?? '', /sealed with key \S+, which is not in the keyring/)
      // Readers that can do without the credentials get the public part, nothing sealed.
      const [config] = await store.listPushConfigs(SCOPE, tampered.task.id)
      assert.deepEqual(config?.target, { kind: 'a2a', url: 'https://a.example/t', artifacts: true })
    } finally {
      await store.close()
    }
  })

  it('keys: 32 bytes only; a target without credentials stays as it is', () => {
    assert.throws(() => keyringOf([randomBytes(16).toString('base64')]), /must be 32 bytes/)
    assert.throws(() => keyringOf([]), /at least one key/)
    const keyring = keyringOf([OLD])
    const bare = { kind: 'clawpedia', url: 'https://x.example/' }
    assert.equal(sealTarget(keyring, bare), bare)
    assert.deepEqual(openTarget(keyring, sealTarget(keyring, CLAWPEDIA)), CLAWPEDIA)
  })
})

describe('sealed store (PostgreSQL)', { skip: pgSkip }, () => {
  let db: TestDatabase
  before(async () => {
    db = await createTestDatabase('sealed')
  })
  after(async () => {
    await db?.drop()
  })

  it('push configs and outbox rows hold no credential; every reader gets the target as given', async () => {
    const schema = db.schema()
    const store = new SealedStore(new PostgresStore({ connectionString: db.url, schema }), keyringOf([OLD]))
    await store.init()
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      const taskId = await writeEverywhere(store)
      const configs = await client.query(`SELECT target FROM "${schema}".push_configs`)
      const deliveries = await client.query(`SELECT target FROM "${schema}".deliveries`)
      assertNoCredential(JSON.stringify([configs.rows, deliveries.rows]))
      await assertReadsBack(store, taskId)
    } finally {
      await client.end()
      await store.close()
    }
  })
})
