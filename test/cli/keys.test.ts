/**
 * `switchboard keys` on the store a server uses: a key made by the CLI authenticates on the
 * running server, is listed without its secret, and is refused from the moment it is revoked.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { instantAgent } from '../helpers/agents.ts'
import { createTestDatabase, pgSkip, type TestDatabase } from '../helpers/postgres.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { cli, json } from './helpers.ts'

interface Created {
  id: string
  key: string
  principal: string
  tenant: string
  scopes: string[]
}

const KEY = /^sbk_[0-9a-f-]{36}_[A-Za-z0-9_-]{43}$/

/** GET the agent's task list with a key: 200 when the server takes it, 401 when not. */
const statusWith = async (server: TestServer, key: string): Promise<number> =>
  (
    await request(`${server.url}/agents/instant/a2a/rest/tasks`, {
      headers: { authorization: `Bearer ${key}`, 'A2A-Version': '1.0' },
    })
  ).status

/** The same story on either backend; `store` is the arguments naming it. */
const keysOnAServer = (store: () => string[], env: () => Record<string, string> = () => ({})) => {
  let server: TestServer

  it('create prints the key once, alone on stdout (the rest on stderr); it works on the running server', async () => {
    const created = await cli(['keys', 'create', '--principal', 'alice', '--label', 'laptop', ...store()], {
      env: env(),
    })
    assert.equal(created.code, 0, created.stderr)
    const key = created.stdout.trim()
    assert.match(key, KEY)
    assert.match(created.stderr, /for alice \(tenant default, scopes: none\)/)
    assert.match(created.stderr, /shown only this once/)
    assert.equal(created.stderr.includes(key.slice(41)), false)
    server = await startServer({ agents: [instantAgent], identity: { apiKeys: {} }, ...serverStore(store()) })
    assert.equal(await statusWith(server, key), 200)
  })

  it('create --json gives id, key, principal, tenant and scopes; list never shows a secret', async () => {
    const made = json<Created>(
      await cli(
        [
          'keys',
          'create',
          '--principal',
          'bob',
          '--tenant',
          'acme',
          '--scope',
          'tasks:read:tenant',
          '--scope',
          'admin',
          '--json',
          ...store(),
        ],
        { env: env() },
      ),
    )
    assert.deepEqual(Object.keys(made).sort(), ['id', 'key', 'principal', 'scopes', 'tenant'])
    assert.deepEqual(
      { ...made, key: undefined, id: undefined },
      {
        principal: 'bob',
        tenant: 'acme',
        scopes: ['tasks:read:tenant', 'admin'],
        key: undefined,
        id: undefined,
      },
    )
    assert.equal(made.key.slice(4, 40), made.id)
    // A key made while the server runs is taken from the next request on.
    assert.equal(await statusWith(server, made.key), 200)

    const listed = json<Record<string, unknown>[]>(
      await cli(['keys', 'list', '--json', ...store()], { env: env() }),
    )
    const bob = listed.find((k) => k.id === made.id)
    assert.deepEqual(bob && { ...bob, createdAt: undefined }, {
      id: made.id,
      principal: 'bob',
      tenant: 'acme',
      scopes: ['tasks:read:tenant', 'admin'],
      createdAt: undefined,
    })
    assert.deepEqual(listed.map((k) => k.principal).sort(), ['alice', 'bob'])
    const text = await cli(['keys', 'list', ...store()], { env: env() })
    assert.equal(text.code, 0)
    assert.match(text.stdout, /^ID\s+PRINCIPAL\s+TENANT\s+SCOPES\s+CREATED\s+REVOKED\s+LABEL\n/)
    assert.match(text.stdout, /alice\s+default\s+-\s+\S+\s+-\s+laptop/)
    for (const output of [JSON.stringify(listed), text.stdout]) {
      assert.equal(output.includes(made.key.slice(41)), false, 'a secret is listed')
      assert.equal(/sbk_|hash/.test(output), false)
    }
  })

  it('revoke refuses the key from the next request on and keeps it listed; an unknown id exits 4', async () => {
    const made = json<Created>(
      await cli(['keys', 'create', '--principal', 'carol', '--json', ...store()], { env: env() }),
    )
    assert.equal(await statusWith(server, made.key), 200)
    const revoked = await cli(['keys', 'revoke', made.id, ...store()], { env: env() })
    assert.equal(revoked.code, 0, revoked.stderr)
    assert.equal(revoked.stdout.trim(), `revoked API key ${made.id}`)
    assert.equal(await statusWith(server, made.key), 401)
    const listed = json<{ id: string; revokedAt?: string }[]>(
      await cli(['keys', 'list', '--json', ...store()], { env: env() }),
    )
    assert.ok(listed.find((k) => k.id === made.id)?.revokedAt)

    const missing = await cli(['keys', 'revoke', '01a22eeb-2732-7000-b1e3-d7d078eb0457', ...store()], {
      env: env(),
    })
    assert.equal(missing.code, 4)
    assert.match(missing.stderr, /no API key 01a22eeb-2732-7000-b1e3-d7d078eb0457/)
  })

  after(() => server?.close())
}

/** The server options of the store the CLI arguments name. */
const serverStore = (args: string[]) => {
  const value = (flag: string) => args[args.indexOf(flag) + 1]
  return args.includes('--store') ? { store: value('--store')! } : { dataDir: value('--data')! }
}

describe('switchboard keys on SQLite (--data)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-keys-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  keysOnAServer(() => ['--data', dir])
})

describe('switchboard keys on PostgreSQL (--store)', { skip: pgSkip }, () => {
  let db: TestDatabase | undefined
  before(async () => {
    db = await createTestDatabase('keys')
  })
  keysOnAServer(() => ['--store', db!.url])
  // After the server's own teardown, which keysOnAServer registered: a database in use cannot be dropped.
  after(() => db?.drop())
})

describe('switchboard keys: where the store is found, and bad input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-keys-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('reads SWITCHBOARD_DATA, or the config file, like serve', async () => {
    const fromEnv = join(dir, 'env')
    const made = await cli(['keys', 'create', '--principal', 'alice'], { env: { SWITCHBOARD_DATA: fromEnv } })
    assert.equal(made.code, 0, made.stderr)
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ dataDir: fromEnv }))
    const listed = json<unknown[]>(await cli(['keys', 'list', '--json', '--config', config]))
    assert.equal(listed.length, 1)
  })

  it('refuses a missing principal or a name with spaces (exit 2), and writes nothing', async () => {
    const data = join(dir, 'bad')
    assert.equal((await cli(['keys', 'create', '--data', data])).code, 2)
    const spaced = await cli(['keys', 'create', '--principal', 'al ice', '--data', data])
    assert.equal(spaced.code, 2)
    assert.match(spaced.stderr, /--principal must be non-empty text without spaces/)
    assert.equal((await cli(['keys', 'create', '--principal', 'a', '--scope', '', '--data', data])).code, 2)
    assert.deepEqual(json(await cli(['keys', 'list', '--json', '--data', data])), [])
  })
})
