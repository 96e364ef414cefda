/**
 * Small files inline: a file artifact of at most `inlineFileBytes` (64 KiB by default) is a `raw`
 * part with its media type and filename, on both bindings, in tasks, streams and webhooks; a larger
 * one is a `url` part to the content endpoint, which serves both. The size is a server option.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { defineAgent } from '../../src/agent/define.ts'
import { LIMITS } from '../../src/engine/limits.ts'
import { createSwitchboard } from '../../src/server/server.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import {
  BINDINGS,
  type Binding,
  eventually,
  readSse,
  rest,
  rpc,
  startA2a,
  startReceiver,
  type TestServer,
  V,
} from './helpers.ts'

/** Writes one file of `size` bytes (each byte its index mod 251, so every byte counts). */
const sizer = defineAgent({
  id: '7a1e5c3b-2d4f-4e6a-8b9c-0d1e2f3a4b61',
  slug: 'sizer',
  name: 'Sizer',
  description: 'Writes a file of the size asked for, for tests.',
  inputSchema: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] },
  async handler(input, ctx) {
    await ctx.artifact({
      type: 'file',
      name: 'blob',
      filename: 'blob.bin',
      mediaType: 'image/png',
      bytes: bytesOf(Number(input.size)),
    })
    return {}
  },
})

const bytesOf = (size: number): Buffer => Buffer.from(Array.from({ length: size }, (_, i) => i % 251))

// biome-ignore lint/suspicious/noExplicitAny: parsed wire JSON
type Wire = any

const message = (size: number) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data: { size } }],
})

/** The file part of a completed task, sent blocking over the binding. */
const sendFor = async (
  server: TestServer,
  binding: Binding,
  size: number,
): Promise<{ task: Wire; part: Wire }> => {
  const params = { message: message(size) }
  const task =
    binding === 'JSONRPC'
      ? (await rpc(server.base('sizer'), 'SendMessage', params)).body.result.task
      : (await rest(server.base('sizer'), '/message:send', { method: 'POST', body: params })).body.task
  checkA2a('Task', task)
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED')
  return { task, part: task.artifacts.find((a: Wire) => a.name === 'blob').parts[0] }
}

const servers: TestServer[] = []
let server: TestServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
before(async () => {
  server = await startA2a({ agents: [sizer] })
  receiver = await startReceiver()
  servers.push(server)
})
after(async () => {
  for (const s of servers) await s.close()
  await receiver.close()
})

for (const binding of BINDINGS) {
  describe(`files over ${binding}`, () => {
    it(`travel inline up to ${LIMITS.inlineFileBytes} bytes, with their media type and filename`, async () => {
      for (const size of [1, 1000, LIMITS.inlineFileBytes]) {
        const { task, part } = await sendFor(server, binding, size)
        assert.deepEqual(part, {
          raw: bytesOf(size).toString('base64'),
          mediaType: 'image/png',
          filename: 'blob.bin',
        })
        // The content endpoint serves a small file as it serves any other.
        const id = task.artifacts.find((a: Wire) => a.name === 'blob').artifactId
        const content = await fetch(`${server.base('sizer')}/artifacts/${id}/content`)
        assert.equal(content.headers.get('content-type'), 'image/png')
        assert.deepEqual(Buffer.from(await content.arrayBuffer()), bytesOf(size))
      }
    })

    it('are links to the content endpoint past it', async () => {
      const size = LIMITS.inlineFileBytes + 1
      const { task, part } = await sendFor(server, binding, size)
      const id = task.artifacts.find((a: Wire) => a.name === 'blob').artifactId
      assert.deepEqual(part, {
        url: `${server.base('sizer')}/artifacts/${id}/content`,
        mediaType: 'image/png',
        filename: 'blob.bin',
      })
      assert.deepEqual(Buffer.from(await (await fetch(part.url)).arrayBuffer()), bytesOf(size))
    })

    it('are inline in stream items too', async () => {
      const params = { message: message(10) }
      const stream =
        binding === 'JSONRPC'
          ? await readSse(`${server.base('sizer')}/a2a/jsonrpc`, {
              body: { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params },
              headers: { ...V },
            })
          : await readSse(`${server.base('sizer')}/a2a/rest/message:stream`, {
              body: params,
              headers: { ...V },
            })
      const updates = stream.events
        .map((e) => JSON.parse(e.data))
        .map((d) => (binding === 'JSONRPC' ? d.result : d).artifactUpdate)
        .filter((u) => u?.artifact.name === 'blob')
      assert.equal(updates.length, 1)
      assert.deepEqual(updates[0].artifact.parts, [
        { raw: bytesOf(10).toString('base64'), mediaType: 'image/png', filename: 'blob.bin' },
      ])
    })
  })
}

describe('files in webhooks', () => {
  it('are inline when small', async () => {
    const sent = await rpc(server.base('sizer'), 'SendMessage', {
      message: message(5),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url } },
    })
    const taskId = sent.body.result.task.id
    const update = await eventually(
      async () =>
        receiver.received
          .map((r) => JSON.parse(r.body).artifactUpdate)
          .find((u) => u?.taskId === taskId && u.artifact.name === 'blob'),
      'the artifact webhook',
      20_000,
    )
    checkA2a('TaskArtifactUpdateEvent', update)
    assert.deepEqual(update.artifact.parts, [
      { raw: bytesOf(5).toString('base64'), mediaType: 'image/png', filename: 'blob.bin' },
    ])
  })
})

describe('the inline size', () => {
  it('is a server option: files up to it inline, larger ones links; 0 sends every file as a link', async () => {
    const eight = await startA2a({ agents: [sizer], artifacts: { inlineFileBytes: 8 } })
    servers.push(eight)
    assert.ok('raw' in (await sendFor(eight, 'JSONRPC', 8)).part)
    assert.ok('url' in (await sendFor(eight, 'HTTP+JSON', 9)).part)
    const none = await startA2a({ agents: [sizer], artifacts: { inlineFileBytes: 0 } })
    servers.push(none)
    assert.ok('url' in (await sendFor(none, 'JSONRPC', 1)).part)
  })

  it('is refused at start-up past the inline content limit, or when not a whole number', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-inline-'))
    try {
      for (const inlineFileBytes of [LIMITS.inlineArtifactBytes + 1, -1, 1.5]) {
        await assert.rejects(
          createSwitchboard({
            agents: [sizer],
            dataDir,
            port: 0,
            logger: false,
            artifacts: { inlineFileBytes },
          }),
          /artifacts\.inlineFileBytes must be a whole number from 0 to 1048576/,
        )
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
