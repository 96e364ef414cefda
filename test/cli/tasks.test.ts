/**
 * The `switchboard` task commands against a real server: what they print (text and --json) and
 * the exit status: 0 done, 1 the task ended badly, 4 the other side said no, 5 the task waits for input.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { RemoteTask, TaskUpdate } from '../../src/client.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { testAgents } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'
import { cli, json, lines } from './helpers.ts'

let server: TestServer
let dir: string
const at = (slug: string) => `${server.url}/agents/${slug}`
before(async () => {
  server = await startServer({ agents: [...demoAgents, ...testAgents] })
  dir = mkdtempSync(join(tmpdir(), 'switchboard-cli-'))
})
after(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('tasks', () => {
  it('card --json: the cards and the interfaces, in order', async () => {
    const result = await cli(['card', at('report-builder'), '--json'])
    assert.equal(result.code, 0, result.stderr)
    const card = json<{
      name: string
      interfaces: { kind: string }[]
      cards: { a2a: unknown; clawpedia: unknown }
    }>(result)
    assert.equal(card.name, 'Report Builder')
    assert.deepEqual(
      card.interfaces.map((i) => i.kind),
      ['jsonrpc', 'rest', 'grpc', 'clawpedia'],
    )
    assert.ok(card.cards.a2a && card.cards.clawpedia)
  })

  it('send --wait: COMPLETED exits 0, FAILED exits 1, INPUT_REQUIRED exits 5; input --wait finishes it', async () => {
    const [done, failed, asks] = await Promise.all([
      cli([
        'send',
        at('python-script-generator'),
        '--input',
        '{"topic":"csv average","filename":"avg.py"}',
        '--wait',
        '--json',
      ]),
      cli([
        'send',
        at('failing'),
        '--input',
        '{"reason":"cli"}',
        '--wait',
        '--json',
        '--prefer',
        'clawpedia',
      ]),
      cli(['send', at('report-builder'), '--text', 'Q4', '--wait', '--json']),
    ])
    assert.equal(done.code, 0, done.stderr)
    assert.equal(json<RemoteTask>(done).state, 'COMPLETED')
    assert.equal(json<RemoteTask>(done).output?.filename, 'avg.py')
    assert.equal(failed.code, 1, failed.stderr)
    assert.equal(json<RemoteTask>(failed).error?.code, 'BROKEN_PIPE')
    assert.equal(asks.code, 5, asks.stderr)
    const waiting = json<RemoteTask>(asks)
    assert.equal(waiting.prompt, 'Which sections should the report on "Q4" contain?')

    const answered = await cli([
      'input',
      at('report-builder'),
      waiting.id,
      '{"sections":["Intro"]}',
      '--wait',
      '--json',
    ])
    assert.equal(answered.code, 0, answered.stderr)
    assert.deepEqual(json<RemoteTask>(answered).output, { title: 'Report: Q4', sections: ['Intro'] })
  })

  it('send --follow prints every update as it comes: text lines, or JSON lines with --json', async () => {
    const [text, ndjson] = await Promise.all([
      cli([
        'send',
        at('long-runner'),
        '--input',
        '{"steps":3,"step_ms":5}',
        '--follow',
        '--prefer',
        'clawpedia',
      ]),
      cli(['send', at('long-runner'), '--input', '{"steps":2,"step_ms":5}', '--follow', '--json']),
    ])
    assert.equal(text.code, 0, text.stderr)
    assert.match(
      text.stdout,
      /SUBMITTED\n.*WORKING\n.*INFO {2}step 1\/3 \(33%\)\n.*INFO {2}step 2\/3.*\n.*INFO {2}step 3\/3.*\n.*COMPLETED\n$/,
    )
    assert.ok(!text.stdout.includes('\u001b['), 'no spinner or colours when not on a terminal')
    assert.equal(ndjson.code, 0, ndjson.stderr)
    const updates = lines<TaskUpdate>(ndjson)
    assert.deepEqual(
      updates.map((u) => (u.type === 'status' ? u.task.state : u.type)),
      ['SUBMITTED', 'WORKING', 'log', 'log', 'artifact', 'COMPLETED'],
    )
    assert.ok(
      updates.every((u) => u.type === 'artifact' || u.id !== undefined),
      'every event carries its id',
    )
  })

  it('get, list, cancel and watch', async () => {
    const started = json<RemoteTask>(
      // Hours of work: still running whenever the cancel arrives, however slow the machine.
      await cli(['send', at('long-runner'), '--input', '{"steps":500,"step_ms":60000}', '--json']),
    )
    assert.ok(['SUBMITTED', 'WORKING'].includes(started.state))
    const [got, listed, cancelled] = await Promise.all([
      cli(['get', at('long-runner'), started.id, '--json']),
      cli(['list', at('long-runner'), '--json', '--limit', '5']),
      cli(['cancel', at('long-runner'), started.id, '--json', '--prefer', 'rest']),
    ])
    assert.equal(json<RemoteTask>(got).id, started.id)
    assert.ok(json<RemoteTask[]>(listed).some((t) => t.id === started.id))
    assert.equal(cancelled.code, 0, cancelled.stderr)
    assert.equal(json<RemoteTask>(cancelled).state, 'CANCELLED')
    const [watched, listedText] = await Promise.all([
      cli(['watch', at('long-runner'), started.id]),
      cli(['list', at('long-runner'), '--state', 'cancelled']),
    ])
    assert.equal(watched.code, 1, 'a followed task that ended CANCELLED')
    assert.match(watched.stdout, /CANCELLED\n$/)
    assert.match(listedText.stdout, new RegExp(`${started.id}\\s+CANCELLED`))
  })

  it('artifacts lists them and --download saves them', async () => {
    const task = json<RemoteTask>(
      await cli([
        'send',
        at('csv-analyst'),
        '--input',
        '{"csv":"a,b\\n1,2\\n3,4"}',
        '--wait',
        '--json',
        '--prefer',
        'clawpedia',
      ]),
    )
    assert.equal(task.state, 'COMPLETED')
    const [listed, saved] = await Promise.all([
      cli(['artifacts', at('csv-analyst'), task.id]),
      cli([
        'artifacts',
        at('csv-analyst'),
        task.id,
        '--download',
        join(dir, 'out'),
        '--json',
        '--prefer',
        'clawpedia',
      ]),
    ])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, /file chart\.svg image\/svg\+xml/)
    assert.equal(saved.code, 0, saved.stderr)
    const files = json<{ type: string; path: string; bytes: number }[]>(saved)
    const chart = files.find((f) => f.type === 'file')!
    assert.ok(existsSync(chart.path))
    assert.match(readFileSync(chart.path, 'utf8'), /^<svg/)
    const stats = files.find((f) => f.type === 'json')!
    assert.equal(JSON.parse(readFileSync(stats.path, 'utf8')).rows, 2)
  })
})
