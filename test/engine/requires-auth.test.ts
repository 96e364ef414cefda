/**
 * ctx.caller and ctx.requireAuth at the engine: the caller recorded with the task is what every
 * run sees, replays and a restart included; AUTH_REQUIRED suspends like ask() and resumes on the
 * caller's "done".
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { Engine } from '../../src/engine/engine.ts'
import { LIMITS } from '../../src/engine/limits.ts'
import { AgentRegistry } from '../../src/engine/registry.ts'
import { LocalBus } from '../../src/events/local-bus.ts'
import { ANONYMOUS, type CallerIdentity, scopeOf } from '../../src/model/caller.ts'
import { newId } from '../../src/model/ids.ts'
import { isTerminal, type TaskState } from '../../src/model/states.ts'
import { nowIso } from '../../src/model/time.ts'
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts'
import { CALENDAR_AUTH_URL, calendarAgent, callersSeen } from '../fixtures/auth-agents.ts'

const ALICE: CallerIdentity = {
  principal: 'alice',
  tenant: 'acme',
  scopes: ['calendar:use'],
  method: 'jwt',
  claims: { sub: 'alice', email: 'alice@acme.example', roles: ['staff'] },
}

/** Fails the task when told to: a handler's refusal of its caller. */
const pickyAgent = defineAgent({
  id: '7a1f0c3e-5b2d-4e6f-9a8b-0c1d2e3f4a5c',
  slug: 'picky',
  name: 'Picky',
  description: 'Serves staff only, or asks for authorization with bad arguments.',
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    if (input.badUrl) await ctx.requireAuth({ message: 'Authorize', url: 'javascript:alert(1)' })
    const roles = ctx.caller.claims?.roles
    if (!Array.isArray(roles) || !roles.includes('staff')) throw new Error('staff only')
    return { claims: ctx.caller.claims ?? null }
  },
})

const dirs: string[] = []
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** An engine on a SQLite file: `restart()` stops it and opens a new one on the same file. */
const open = async (filename?: string) => {
  const file = filename ?? join(mkdtempSync(join(tmpdir(), 'switchboard-auth-')), 'tasks.db')
  if (!filename) dirs.push(join(file, '..'))
  const store = new SqliteStore({ filename: file })
  const bus = new LocalBus()
  const engine = new Engine({
    store,
    bus,
    agents: new AgentRegistry([calendarAgent, pickyAgent]),
    singleProcess: true,
    pollMs: 50,
  })
  await engine.start()
  const close = async () => {
    await engine.stop()
    await store.close()
  }
  const restart = async () => {
    await close()
    return open(file)
  }
  return { engine, store, bus, close, restart }
}
let opened: Awaited<ReturnType<typeof open>> | undefined
afterEach(async () => {
  await opened?.close()
  opened = undefined
  callersSeen.length = 0
})

const waitState = (engine: Engine, caller: CallerIdentity, id: string, state: TaskState) =>
  engine.waitFor(scopeOf(caller), id, (s) => s === state || isTerminal(s))

describe('ctx.requireAuth', () => {
  it('puts the task in AUTH_REQUIRED with what to authorize and where, and resumes on the caller\'s "done"', async () => {
    opened = await open()
    const { engine } = opened
    const { task } = await engine.submit({ caller: ALICE, agent: 'calendar', input: { skipWeek: true } })
    const waiting = await waitState(engine, ALICE, task.id, 'AUTH_REQUIRED')
    assert.equal(waiting.state, 'AUTH_REQUIRED')
    assert.equal(waiting.prompt, `Authorize access to your calendar (${CALENDAR_AUTH_URL})`)
    assert.deepEqual(waiting.auth, { scheme: 'oauth2', url: CALENDAR_AUTH_URL, scopes: ['calendar.read'] })
    assert.deepEqual(waiting.inputSchema, { type: 'object' }, 'any object reports the step done')

    await engine.provideInput({ scope: scopeOf(ALICE), taskId: task.id, input: { authorized: true } })
    const done = await waitState(engine, ALICE, task.id, 'COMPLETED')
    assert.equal(done.state, 'COMPLETED')
    assert.deepEqual(done.output, { week: null, done: { authorized: true }, principal: 'alice' })
    assert.equal(done.auth, undefined, 'the requirement is cleared once the task works again')
  })

  it('shares its place in the replay with ask(): each gets its own answer, in order', async () => {
    opened = await open()
    const { engine } = opened
    const { task } = await engine.submit({ caller: ALICE, agent: 'calendar', input: {} })
    await waitState(engine, ALICE, task.id, 'INPUT_REQUIRED')
    await engine.provideInput({ scope: scopeOf(ALICE), taskId: task.id, input: { week: 12 } })
    await waitState(engine, ALICE, task.id, 'AUTH_REQUIRED')
    await engine.provideInput({ scope: scopeOf(ALICE), taskId: task.id, text: 'done' })
    const done = await waitState(engine, ALICE, task.id, 'COMPLETED')
    // A text answer to a question with its own schema (AUTH_REQUIRED's: any object) is { text }.
    assert.deepEqual(done.output, { week: { week: 12 }, done: { text: 'done' }, principal: 'alice' })
    assert.equal(callersSeen.length, 3, 'three runs: first, after the answer, after the authorization')
  })

  it('survives a restart between the requirement and the "done"', async () => {
    opened = await open()
    const { task } = await opened.engine.submit({
      caller: ALICE,
      agent: 'calendar',
      input: { skipWeek: true },
    })
    await waitState(opened.engine, ALICE, task.id, 'AUTH_REQUIRED')
    opened = await opened.restart()
    const { engine } = opened
    const waiting = await engine.getTask(scopeOf(ALICE), task.id)
    assert.equal(waiting.state, 'AUTH_REQUIRED')
    assert.equal(waiting.auth?.url, CALENDAR_AUTH_URL)
    await engine.provideInput({ scope: scopeOf(ALICE), taskId: task.id, input: {} })
    const done = await waitState(engine, ALICE, task.id, 'COMPLETED')
    assert.equal(done.state, 'COMPLETED')
    assert.equal(callersSeen.length, 2)
    assert.deepEqual(callersSeen[1], ALICE, 'the run after the restart sees the creating caller')
  })

  it('fails the task when the handler passes a URL that is not http(s)', async () => {
    opened = await open()
    const { engine } = opened
    const { task } = await engine.submit({ caller: ALICE, agent: 'picky', input: { badUrl: true } })
    const failed = await waitState(engine, ALICE, task.id, 'FAILED')
    assert.equal(failed.state, 'FAILED')
    assert.match(failed.error?.message ?? '', /url must be an http or https URL/)
  })
})

describe('ctx.caller', () => {
  it('is the creating caller on every run, and may refuse it', async () => {
    opened = await open()
    const { engine } = opened
    const { task } = await engine.submit({ caller: ALICE, agent: 'calendar', input: {} })
    await waitState(engine, ALICE, task.id, 'INPUT_REQUIRED')
    await engine.provideInput({ scope: scopeOf(ALICE), taskId: task.id, input: { week: 1 } })
    await waitState(engine, ALICE, task.id, 'AUTH_REQUIRED')
    assert.deepEqual(callersSeen, [ALICE, ALICE])
    assert.ok(Object.isFrozen(callersSeen[0]), 'a handler cannot change it for later calls')

    const outsider: CallerIdentity = { ...ALICE, principal: 'bob', claims: { roles: ['guest'] } }
    const { task: refused } = await engine.submit({ caller: outsider, agent: 'picky', input: {} })
    const failed = await waitState(engine, outsider, refused.id, 'FAILED')
    assert.equal(failed.error?.message, 'staff only')
  })

  it('is ANONYMOUS when authentication is off, and records nothing extra for it', async () => {
    opened = await open()
    const { engine } = opened
    const { task } = await engine.submit({ caller: ANONYMOUS, agent: 'calendar', input: { skipWeek: true } })
    await waitState(engine, ANONYMOUS, task.id, 'AUTH_REQUIRED')
    assert.deepEqual(callersSeen, [{ ...ANONYMOUS }])
    assert.equal('caller' in task, false, 'the tenant and owner already say it')
  })

  it('is derived from the tenant and owner of a task created before callers were recorded', async () => {
    opened = await open()
    const { engine, store, bus } = opened
    const id = newId()
    await store.createTask({
      header: {
        id,
        tenant: 'old-tenant',
        owner: 'old-owner',
        agent: 'calendar',
        contextId: newId(),
        createdAt: nowIso(),
      },
      input: { skipWeek: true },
    })
    bus.announceWork()
    const owner = { principal: 'old-owner', tenant: 'old-tenant', scopes: [], method: 'none' }
    await waitState(engine, owner, id, 'AUTH_REQUIRED')
    assert.deepEqual(callersSeen, [owner])
  })

  it(`keeps the claims under ${LIMITS.callerClaimsBytes} bytes by leaving out the largest`, async () => {
    opened = await open()
    const { engine } = opened
    const groups = Array.from({ length: 2000 }, (_, i) => `group-${i}`)
    const big: CallerIdentity = { ...ALICE, claims: { sub: 'alice', roles: ['staff'], groups } }
    const { task } = await engine.submit({ caller: big, agent: 'picky', input: {} })
    const done = await waitState(engine, big, task.id, 'COMPLETED')
    assert.deepEqual(done.output, { claims: { sub: 'alice', roles: ['staff'] } })
    assert.deepEqual(done.caller?.claims, { sub: 'alice', roles: ['staff'] })
  })
})
