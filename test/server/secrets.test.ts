/**
 * Push credentials at rest through the whole server: zero setup seals them with a generated key
 * file, the database holds no credential, notifications still carry them, and a restart reads them.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { secretsFlags } from '../../src/cli/serve-flags/secrets.ts'
import { createSwitchboard } from '../../src/server/server.ts'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { rpc } from '../a2a/helpers.ts'
import { instantAgent } from '../helpers/agents.ts'
import { databaseIn, rawTargets, sendWithPush } from '../helpers/push-secrets.ts'
import { eventually, startServer } from '../helpers/server.ts'
import { startReceiver } from '../push/helpers.ts'

const cleanup: (() => Promise<void> | void)[] = []
after(async () => {
  for (const close of cleanup.reverse()) await close()
})

const TOKEN = 'a2a-token-5f1d0c'
const CREDENTIALS = 'a2a-credentials-9e2b7a'
const AUTH_HEADER = 'X-Hook-Secret: clawpedia-secret-3c8d41'

describe('push credentials at rest', () => {
  it('zero setup: a 0600 key file is generated, the database holds no credential, notifications carry them, a restart reads them', async () => {
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-secrets-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const options = {
      dataDir,
      notifications: { 'python-script-generator': { endpointUrl: receiver.url, authHeader: AUTH_HEADER } },
    }
    const server = await startServer(options)
    const base = `${server.url}/agents/python-script-generator`
    const sent = await sendWithPush(base, { url: receiver.url, token: TOKEN, credentials: CREDENTIALS })
    const taskId = sent.body.result.task.id as string
    const completedFor = (check: (headers: Record<string, unknown>) => boolean) =>
      receiver.received.find((r) => check(r.headers) && r.body.includes('COMPLETED'))
    await eventually(async () =>
      completedFor((h) => h['x-a2a-notification-token'] === TOKEN) &&
      completedFor((h) => h['x-hook-secret'] === 'clawpedia-secret-3c8d41')
        ? true
        : undefined,
    )
    const a2a = completedFor((h) => h['x-a2a-notification-token'] === TOKEN)!
    assert.equal(a2a.headers.authorization, `Bearer ${CREDENTIALS}`)

    const keyFile = join(dataDir, 'secrets.key')
    assert.equal(statSync(keyFile).mode & 0o777, 0o600)
    const key = readFileSync(keyFile, 'utf8')
    const raw = rawTargets(databaseIn(dataDir))
    for (const secret of [TOKEN, CREDENTIALS, 'clawpedia-secret-3c8d41', key.split('\n')[1]!])
      assert.ok(!raw.includes(secret), `the database holds "${secret}"`)
    assert.match(raw, /"sealed":"v1\./)
    await server.close()

    const again = await startServer(options)
    cleanup.push(() => again.close())
    assert.equal(readFileSync(keyFile, 'utf8'), key, 'the key file is reused, not replaced')
    const listed = await rpc(
      `${again.url}/agents/python-script-generator`,
      'ListTaskPushNotificationConfigs',
      {
        taskId,
      },
    )
    assert.equal(listed.body.result.configs[0].token, TOKEN)
  })

  it('a store shared between replicas is sealed only with configured keys; a bad key refuses to start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-secrets-'))
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }))
    const store = createMemoryStore()
    const switchboard = await createSwitchboard({ agents: [instantAgent], store, dataDir, logger: false })
    assert.equal(
      switchboard.store,
      store,
      'no key, no sealing: no key file is made for a store we did not open',
    )
    await switchboard.close()
    const key = randomBytes(32).toString('base64')
    const sealed = await createSwitchboard({
      agents: [instantAgent],
      store: createMemoryStore(),
      secrets: { keys: [key] },
      logger: false,
    })
    assert.notEqual(sealed.store.constructor.name, 'SqliteStore')
    await sealed.close()
    await assert.rejects(
      createSwitchboard({
        agents: [instantAgent],
        store: createMemoryStore(),
        secrets: { keys: ['c2hvcnQ='] },
        logger: false,
      }),
      /must be 32 bytes/,
    )
  })

  it('serve: --secrets-key (repeatable) over SWITCHBOARD_SECRETS_KEYS over secrets.keys, each checked', () => {
    const [a, b, c] = [1, 2, 3].map(() => randomBytes(32).toString('base64'))
    const resolve = (flags: object, env: object, file: object) =>
      secretsFlags.resolve({ flags: flags as never, env: env as never, file: file as never })
    assert.deepEqual(resolve({ secretsKey: [a, b] }, { SWITCHBOARD_SECRETS_KEYS: c }, {}), {
      secrets: { keys: [a, b] },
    })
    assert.deepEqual(resolve({}, { SWITCHBOARD_SECRETS_KEYS: `${b}, ${c}` }, { secrets: { keys: [a] } }), {
      secrets: { keys: [b, c] },
    })
    assert.deepEqual(resolve({}, {}, { secrets: { keys: [a] } }), { secrets: { keys: [a] } })
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.throws(() => resolve({ secretsKey: ['abc'] }, {}, {}), /^Error: --secrets-key: .*32 bytes/)
    assert.throws(() => resolve({}, { SWITCHBOARD_SECRETS_KEYS: 'abc' }, {}), /SWITCHBOARD_SECRETS_KEYS/)
    assert.throws(() => resolve({}, {}, { secrets: { keys: 'x' } }), /secrets\.keys .* array/)
  })
})
