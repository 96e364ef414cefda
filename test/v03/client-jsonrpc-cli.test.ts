/**
 * The `switchboard` CLI against an A2A 0.3 agent served by @a2a-js/sdk 0.3.14 over JSON-RPC: it
 * works through the client, so send, get, cancel, input, follow and watch all speak 0.3.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask } from '../../src/client.ts'
import { cli, json, lines } from '../cli/helpers.ts'
import { type Sdk03Server, startSdk03Server } from './sdk03-server.ts'

let peer: Sdk03Server
before(async () => {
  peer = await startSdk03Server()
})
after(() => peer?.close())

describe('the CLI against a 0.3 agent', () => {
  it('card, send --wait, get, watch', async () => {
    const card = await cli(['card', peer.url, '--json'])
    assert.equal(card.code, 0, card.stderr)
    assert.deepEqual(
      json<{ interfaces: { kind: string; url: string }[] }>(card).interfaces.map((i) => [i.kind, i.url]),
      [['jsonrpc', `${peer.url}/`]],
    )
    const text = await cli(['card', peer.url])
    assert.match(text.stdout, /\* jsonrpc +http:\/\/127\.0\.0\.1:\d+\/ \(A2A 0\.3\)/)
    const sent = await cli(['send', peer.url, '--text', 'hello', '--wait', '--json'])
    assert.equal(sent.code, 0, sent.stderr)
    const task = json<RemoteTask>(sent)
    assert.equal(task.state, 'COMPLETED')
    const got = await cli(['get', peer.url, task.id, '--json'])
    assert.equal(got.code, 0, got.stderr)
    assert.equal(json<RemoteTask>(got).state, 'COMPLETED')
    const watched = await cli(['watch', peer.url, task.id, '--json'])
    assert.equal(watched.code, 0, watched.stderr)
    const last = lines<{ type: string; task?: RemoteTask }>(watched).at(-1)
    assert.equal(last?.task?.state, 'COMPLETED')
  })

  it('send --follow streams to the end; cancel; input answers a task that asked', async () => {
    const [followed, held, asked] = await Promise.all([
      cli(['send', peer.url, '--text', 'streamed', '--follow', '--json']),
      cli(['send', peer.url, '--text', 'hold', '--json']),
      cli(['send', peer.url, '--text', 'ask', '--wait', '--json']),
    ])
    assert.equal(followed.code, 0, followed.stderr)
    const updates = lines<{ type: string; task?: RemoteTask; artifact?: { name: string } }>(followed)
    assert.ok(updates.some((u) => u.type === 'artifact' && u.artifact?.name === 'echo'))
    assert.equal(updates.at(-1)?.task?.state, 'COMPLETED')

    assert.equal(held.code, 0, held.stderr)
    const canceled = await cli(['cancel', peer.url, json<RemoteTask>(held).id, '--json'])
    assert.equal(canceled.code, 0, canceled.stderr)
    assert.equal(json<RemoteTask>(canceled).state, 'CANCELLED')

    assert.equal(asked.code, 5, 'waits for input')
    const answered = await cli([
      'input',
      peer.url,
      json<RemoteTask>(asked).id,
      '--text',
      'blue',
      '--wait',
      '--json',
    ])
    assert.equal(answered.code, 0, answered.stderr)
    assert.equal(json<RemoteTask>(answered).state, 'COMPLETED')
  })
})
