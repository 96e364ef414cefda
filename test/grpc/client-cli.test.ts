/**
 * The `switchboard` command with `--binding grpc` against our server. The commands are pointed at
 * a card that lists only the agent's GRPC interface, so each result proves the call went over gRPC.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask } from '../../src/client.ts'
import { cli, json } from '../cli/helpers.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { type CardStub, grpcOnlyCard } from './grpc-only-card.ts'

let server: TestServer
let card: CardStub
const agentUrl = () => `${server.url}/agents/long-runner`
before(async () => {
  server = await startServer()
  card = await grpcOnlyCard(agentUrl(), server.switchboard.grpcAddress()!)
})
after(async () => {
  await card.close()
  await server.close()
})

describe('switchboard --binding grpc', () => {
  it('card: the one interface used is the GRPC one', async () => {
    const result = await cli(['card', agentUrl(), '--binding', 'grpc', '--json'])
    assert.equal(result.code, 0, result.stderr)
    const shown = json<{ interfaces: { kind: string; url: string }[] }>(result)
    assert.deepEqual(
      shown.interfaces.map((i) => [i.kind, i.url]),
      [['grpc', `http://${server.switchboard.grpcAddress()}`]],
    )
  })

  it('send --wait, get, cancel: over gRPC alone, with the exit codes of the other bindings', async () => {
    const sent = await cli([
      'send',
      card.url,
      '--input',
      '{"steps":2,"step_ms":5}',
      '--wait',
      '--json',
      '--binding',
      'grpc',
    ])
    assert.equal(sent.code, 0, sent.stderr)
    const done = json<RemoteTask>(sent)
    assert.equal(done.state, 'COMPLETED')
    assert.equal(done.output?.steps, 2)

    const got = await cli(['get', card.url, done.id, '--json', '--binding', 'grpc'])
    assert.equal(got.code, 0, got.stderr)
    assert.equal(json<RemoteTask>(got).id, done.id)
    assert.equal(json<RemoteTask>(got).state, 'COMPLETED')

    const started = await cli([
      'send',
      card.url,
      '--input',
      '{"steps":500,"step_ms":20}',
      '--json',
      '--binding',
      'grpc',
    ])
    assert.equal(started.code, 0, started.stderr)
    const running = json<RemoteTask>(started)
    const cancelled = await cli(['cancel', card.url, running.id, '--json', '--binding', 'grpc'])
    assert.equal(cancelled.code, 0, cancelled.stderr)
    assert.equal(json<RemoteTask>(cancelled).state, 'CANCELLED')

    // Cancelling the completed one: the agent says no, exit 4, as over the HTTP bindings.
    const refused = await cli(['cancel', card.url, done.id, '--binding', 'grpc'])
    assert.equal(refused.code, 4, refused.stderr)
    assert.match(refused.stderr, /^switchboard: /)
  })

  it('an unknown task exits 4; another binding than the card offers is no usable interface', async () => {
    const missing = await cli(['get', card.url, '6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f', '--binding', 'grpc'])
    assert.equal(missing.code, 4, missing.stderr)
    const none = await cli(['get', card.url, '6f1d0c9e-8a2b-4c3d-9e4f-5a6b7c8d9e0f', '--binding', 'jsonrpc'])
    assert.notEqual(none.code, 0)
    assert.match(none.stderr, /no interface this client can use/)
  })

  it('--binding takes one known kind, and not together with --prefer (usage, exit 2)', async () => {
    const unknown = await cli(['get', card.url, 't', '--binding', 'soap'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /--binding takes one of jsonrpc, rest, grpc, clawpedia/)
    const both = await cli(['get', card.url, 't', '--binding', 'grpc', '--prefer', 'rest'])
    assert.equal(both.code, 2)
    assert.match(both.stderr, /--binding and --prefer exclude each other/)
  })
})
