/**
 * Our client reassembles streamed artifacts on every interface, across a connection cut in the
 * middle of one (Last-Event-ID resume: nothing lost, nothing twice), and saves small files that
 * arrive inline (A2A raw parts) as it saves linked ones.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { InterfaceKind } from '../../src/client/types.ts'
import { connect, type TaskUpdate } from '../../src/client.ts'
import { echoAgent } from '../a2a/helpers.ts'
import { hold, release, TOKENS, tellerAgent } from '../fixtures/chunk-agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { collect, idsOf, type TcpProxy, tcpProxy } from './helpers.ts'

const KINDS: InterfaceKind[] = ['jsonrpc', 'rest', 'clawpedia']
const FULL = TOKENS.join('')

let server: TestServer
let proxy: TcpProxy
let dir: string
before(async () => {
  proxy = await tcpProxy()
  server = await startServer({
    agents: [tellerAgent, echoAgent],
    publicUrl: `http://127.0.0.1:${proxy.port}`,
  })
  proxy.target = (server.switchboard.app.server.address() as AddressInfo).port
  dir = mkdtempSync(join(tmpdir(), 'switchboard-chunks-'))
})
after(async () => {
  await server.close()
  await proxy.close()
  rmSync(dir, { recursive: true, force: true })
})

const options = {
  reconnect: { baseMs: 20, maxMs: 200, maxAttempts: 20 },
  heartbeat: { intervalMs: 60, missed: 3 },
  timeoutMs: 5000,
  cache: false as const,
}

type ArtifactUpdate = Extract<TaskUpdate, { type: 'artifact' }>
const storyUpdates = (updates: TaskUpdate[]): ArtifactUpdate[] =>
  updates.filter((u): u is ArtifactUpdate => u.type === 'artifact' && u.artifact.type === 'text')

for (const kind of KINDS) {
  describe(`streamed artifacts over ${kind}`, () => {
    it('are reassembled across a connection cut in the middle of one', async () => {
      const agent = await connect(`http://127.0.0.1:${proxy.port}/agents/teller`, {
        ...options,
        prefer: [kind],
      })
      const gate = `client-${kind}-${randomUUID()}`
      hold(gate)
      const task = await agent.send({ hold: gate, hold_after: 4 })
      const got: TaskUpdate[] = []
      let cut = false
      for await (const update of task.events()) {
        got.push(update)
        // The agent waits after four pieces: the rest can only come over a new connection.
        if (!cut && update.type === 'artifact' && update.chunk?.text === TOKENS[3]) {
          cut = true
          proxy.cut()
          release(gate)
        }
      }
      assert.ok(cut)
      const story = storyUpdates(got)
      const pieces = story.filter((u) => u.chunk !== undefined)
      assert.deepEqual(
        pieces.map((u) => u.chunk),
        [...TOKENS.map((text) => ({ text, last: false })), { text: '', last: true }],
        'every piece once, in order',
      )
      const whole = story.at(-1)?.artifact
      assert.equal(whole?.type === 'text' && whole.text, FULL, 'the last update holds the whole text')
      const ids = idsOf(got)
      assert.equal(new Set(ids).size, ids.length, 'no event twice')
      const kept = task.task.artifacts?.find((a) => a.id === story[0]!.artifact.id)
      assert.equal(kept?.type === 'text' && kept.text, FULL, "the handle's task holds the whole text")
      const listed = (await task.artifacts()).find((a) => a.id === story[0]!.artifact.id)
      assert.equal(listed?.type === 'text' ? listed.text : undefined, FULL, 'and so does the agent')
      const replay = storyUpdates(await collect((await agent.task(task.id)).events()))
      assert.deepEqual(
        replay.map((u) => u.chunk),
        story.map((u) => u.chunk),
        'a full replay reassembles the same',
      )
    })
  })
}

describe('small files inline', () => {
  for (const kind of KINDS) {
    it(`over ${kind}: are saved from the part itself (A2A) or the link (Clawpedia), the same bytes`, async () => {
      const agent = await connect(`http://127.0.0.1:${proxy.port}/agents/echo`, {
        ...options,
        prefer: [kind],
      })
      const task = await agent.send({ artifacts: true })
      assert.equal((await task.wait()).state, 'COMPLETED')
      const file = (await task.artifacts()).find((a) => a.type === 'file' && a.filename === 'a.txt')
      assert.ok(file?.type === 'file')
      if (kind === 'clawpedia') assert.ok(file.url && file.raw === undefined, 'Clawpedia links it')
      else assert.equal(file.raw, Buffer.from('file body').toString('base64'), 'A2A carries it')
      const saved = await task.download(file, { to: join(dir, `${kind}-a.txt`) })
      assert.equal(readFileSync(saved.path, 'utf8'), 'file body')
      assert.equal(saved.bytes, 9)
    })
  }
})
