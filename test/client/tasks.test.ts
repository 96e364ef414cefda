/**
 * The one task API against our own server, over each interface it serves: A2A JSON-RPC, A2A
 * HTTP+JSON and Clawpedia. The same calls give the same results whichever carries them.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ClientError } from '../../src/client/errors.ts'
import type { InterfaceKind } from '../../src/client/types.ts'
import { type Agent, connect, data, OutputSchemaError } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { testAgents } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect, idsOf, shapes, stubServer } from './helpers.ts'

let server: TestServer
let dir: string
before(async () => {
  server = await startServer({ agents: [...demoAgents, ...testAgents], pingMs: 100 })
  dir = mkdtempSync(join(tmpdir(), 'switchboard-client-'))
})
after(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const KINDS: InterfaceKind[] = ['jsonrpc', 'rest', 'clawpedia']
const agentAt = (slug: string, kind: InterfaceKind): Promise<Agent> =>
  connect(`${server.url}/agents/${slug}`, { prefer: [kind], timeoutMs: 5000 })

for (const kind of KINDS) {
  describe(`the task API over ${kind}`, () => {
    it('sends, follows every update from the first, and waits for the output', async () => {
      const agent = await agentAt('python-script-generator', kind)
      assert.equal(agent.interface.kind, kind)
      const task = await agent.send({ topic: 'fibonacci numbers', filename: 'fib.py' })
      assert.equal(task.status, 'SUBMITTED')
      const done = await task.wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
      assert.equal(done.output?.filename, 'fib.py')
      assert.equal(done.output?.template, 'fibonacci')

      const updates = await collect(task.events())
      const kinds = shapes(updates)
      assert.deepEqual(
        kinds.filter((k) => k.startsWith('status:')),
        ['status:SUBMITTED', 'status:WORKING', 'status:COMPLETED'],
      )
      assert.deepEqual(
        updates.flatMap((u) => (u.type === 'log' ? [u.message] : [])),
        ['Choosing a template for: fibonacci numbers', 'Using the "fibonacci" template', 'Wrote fib.py'],
      )
      const ids = idsOf(updates)
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'event ids only go up',
      )
      assert.equal(new Set(ids).size, ids.length, 'no id twice')
      const last = updates.at(-1)!
      assert.ok(last.type === 'status' && last.task.output?.filename === 'fib.py')

      const file = (await task.artifacts()).find((a) => a.type === 'file')
      assert.ok(file && file.type === 'file')
      assert.equal(file.filename, 'fib.py')
      const saved = await task.download(file, { to: dir })
      assert.equal(saved.path, join(dir, 'fib.py'))
      assert.match(readFileSync(saved.path, 'utf8'), /def fibonacci/)
    })

    it('multi-turn: waits at INPUT_REQUIRED with the question, takes the answer, completes', async () => {
      const agent = await agentAt('report-builder', kind)
      const task = await agent.send({ subject: 'Q3' })
      const asked = await task.wait({ timeoutMs: 5000 })
      assert.equal(asked.state, 'INPUT_REQUIRED')
      assert.equal(asked.prompt, 'Which sections should the report on "Q3" contain?')
      assert.deepEqual(asked.inputSchema?.anyOf, [{ required: ['sections'] }, { required: ['text'] }])
      await task.provideInput({ sections: ['Intro', 'Numbers'] })
      const done = await task.wait({ timeoutMs: 5000 })
      assert.equal(done.state, 'COMPLETED')
      assert.deepEqual(done.output, { title: 'Report: Q3', sections: ['Intro', 'Numbers'] })
      // A replay passes through the old question; wait() on the finished task does not stop there.
      const again = await (await agent.task(task.id)).wait({ timeoutMs: 5000 })
      assert.equal(again.state, 'COMPLETED')
      assert.deepEqual(
        shapes(await collect(task.events())).filter((k) => k.startsWith('status:')),
        ['status:SUBMITTED', 'status:WORKING', 'status:INPUT_REQUIRED', 'status:WORKING', 'status:COMPLETED'],
      )
    })

    it('events() stays with a task through INPUT_REQUIRED until it ends', async () => {
      const agent = await agentAt('report-builder', kind)
      const task = await agent.send({ subject: 'live' })
      const seen: string[] = []
      for await (const update of task.events()) {
        if (update.type !== 'status') continue
        seen.push(update.task.state)
        if (update.task.state === 'INPUT_REQUIRED') await task.provideInput({ sections: ['Only'] })
      }
      assert.deepEqual(seen, ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'WORKING', 'COMPLETED'])
      assert.equal(task.status, 'COMPLETED')
    })

    it('cancels a running task', async () => {
      const agent = await agentAt('long-runner', kind)
      const task = await agent.send({ steps: 200, step_ms: 20 })
      for await (const update of task.events()) if (update.type === 'log') break
      const cancelled = await task.cancel()
      assert.equal(cancelled.state, 'CANCELLED')
      assert.equal((await task.wait({ timeoutMs: 5000 })).state, 'CANCELLED')
      const statuses = shapes(await collect(task.events())).filter((k) => k.startsWith('status:'))
      assert.equal(statuses.at(-1), 'status:CANCELLED')
    })

    it('a failed task carries its error; unknown tasks and bad input are typed errors', async () => {
      const failing = await agentAt('failing', kind)
      const failed = await (await failing.send({ reason: 'tests' })).wait({ timeoutMs: 5000 })
      assert.equal(failed.state, 'FAILED')
      assert.equal(failed.error?.code, 'BROKEN_PIPE')
      assert.equal(failed.error?.message, 'the pipe broke: tests')

      await assert.rejects(failing.task('6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f'), (error: unknown) => {
        assert.ok(error instanceof ClientError)
        assert.equal(error.code, 'TASK_NOT_FOUND')
        return true
      })
      const generator = await agentAt('python-script-generator', kind)
      await assert.rejects(generator.send({ topic: 'x', filename: 'not python' }), (error: unknown) => {
        assert.ok(error instanceof ClientError)
        assert.equal(error.code, 'INPUT_SCHEMA_VIOLATION')
        assert.ok(error.details?.violations?.some((v) => v.field.endsWith('/filename')))
        return true
      })
    })
  })
}

describe('across interfaces', () => {
  it('a task created over one interface is followed over another with the same event ids', async () => {
    const created = await (await agentAt('long-runner', 'clawpedia')).send({ steps: 4, step_ms: 5 })
    await created.wait({ timeoutMs: 5000 })
    const byKind = await Promise.all(
      KINDS.map(async (kind) =>
        idsOf(await collect((await (await agentAt('long-runner', kind)).task(created.id)).events())),
      ),
    )
    assert.deepEqual(byKind[0], byKind[1])
    assert.deepEqual(byKind[0], byKind[2])
  })

  it('list() iterates every page of A2A ListTasks; a Clawpedia-only connection cannot list', async () => {
    const agent = await agentAt('instant', 'rest')
    const made = []
    for (let i = 0; i < 5; i++) made.push((await agent.send({ n: i })).id)
    const listed = []
    for await (const task of agent.list({ pageSize: 2 })) listed.push(task.id)
    for (const id of made) assert.ok(listed.includes(id), `task ${id} is listed`)
    assert.equal(new Set(listed).size, listed.length)
    const clawpedia = await agentAt('instant', 'clawpedia')
    await assert.rejects(collect(clawpedia.list() as never), { code: 'UNSUPPORTED_OPERATION' })
  })

  it('{ message } built from model parts: its data part is the input, in both dialects', async () => {
    for (const kind of ['jsonrpc', 'clawpedia'] as const) {
      const agent = await agentAt('report-builder', kind)
      const task = await agent.send({ message: { parts: [data({ subject: 'parts' })] } })
      assert.equal(
        (await task.wait({ timeoutMs: 5000 })).prompt,
        'Which sections should the report on "parts" contain?',
      )
      await task.provideInput({ message: { parts: [data({ sections: ['One'] })] } })
      assert.deepEqual((await task.wait({ timeoutMs: 5000 })).output?.sections, ['One'])
    }
  })

  it('{ text } becomes a text part on A2A, and the agent reads it with fromText', async () => {
    const agent = await agentAt('report-builder', 'jsonrpc')
    const task = await agent.send({ text: 'text subject' })
    assert.equal(
      (await task.wait({ timeoutMs: 5000 })).prompt,
      'Which sections should the report on "text subject" contain?',
    )
  })
})

describe('the output schema', () => {
  it("a COMPLETED output that breaks the card's output_schema is an OutputSchemaError", async () => {
    const id = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b'
    let output: object = { count: 'many' }
    const task = (status: string) => ({
      task_id: id,
      agent_id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
      status,
      input: {},
      ...(status === 'COMPLETED' && { output }),
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:01.000Z',
    })
    const foreign = await stubServer((req) => {
      if (req.url === '/agent-card.json') {
        return {
          status: 200,
          body: {
            protocol_version: '1.0',
            agent_id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
            display_name: 'Counter',
            description: 'Counts things, or says it does.',
            capabilities: [],
            input_schema: { type: 'object' },
            output_schema: {
              type: 'object',
              properties: { count: { type: 'integer' } },
              required: ['count'],
            },
          },
        }
      }
      if (req.method === 'POST' && req.url === '/tasks') return { status: 202, body: task('SUBMITTED') }
      if (req.url === `/tasks/${id}`) return { status: 200, body: task('COMPLETED') }
      if (req.url === `/tasks/${id}/stream`) {
        return {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: `id: 1\nevent: status\ndata: ${JSON.stringify(task('COMPLETED'))}\n\n`,
        }
      }
      return { status: 404 }
    })
    try {
      const agent = await connect(foreign.url, { cache: false })
      const sent = await agent.send({})
      await assert.rejects(sent.wait({ timeoutMs: 5000 }), (error: unknown) => {
        assert.ok(error instanceof OutputSchemaError)
        assert.equal(error.code, 'OUTPUT_SCHEMA_VIOLATION')
        assert.equal(error.task.id, id)
        assert.deepEqual(
          error.violations.map((v) => v.field),
          ['/output/count'],
        )
        return true
      })
      await assert.rejects(collect(sent.events()), OutputSchemaError)
      const unchecked = await connect(foreign.url, { cache: false, outputSchema: false })
      assert.equal((await (await unchecked.send({})).wait({ timeoutMs: 5000 })).state, 'COMPLETED')
      output = { count: 3 }
      assert.deepEqual((await (await agent.send({})).wait({ timeoutMs: 5000 })).output, { count: 3 })
    } finally {
      await foreign.close()
    }
  })
})
