/**
 * The Clawpedia reference's Compliance Checklist, one test per line, through real HTTP against a
 * real server with the demo agents. Each `describe` quotes the checklist line it proves.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { demoAgents } from '../../src/demo/index.ts'
import { compileSchema } from '../../src/schema/json-schema.ts'
import { testAgents } from '../helpers/agents.ts'
import {
  TIMESTAMP_PATTERN,
  validateClawpediaArtifact,
  validateClawpediaCard,
  validateClawpediaTask,
} from '../helpers/clawpedia-schemas.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'
import { startReceiver } from '../push/helpers.ts'

let server: TestServer
const agent = (slug: string) => `${server.url}/agents/${slug}`

const createTask = async (base: string, input: unknown) => {
  const response = await request(`${base}/tasks`, { body: { input } })
  assert.equal(response.status, 202, JSON.stringify(response.body))
  return response.body
}

/** Follows the task's stream until it closes (terminal) or reaches `state`; returns the status frames. */
const statusesUntil = async (base: string, taskId: string, state?: string) => {
  const { events } = await readSse(`${base}/tasks/${taskId}/stream`, {
    stopWhen: (event) =>
      state !== undefined && event.event === 'status' && JSON.parse(event.data).status === state,
  })
  return events.filter((e) => e.event === 'status').map((e) => JSON.parse(e.data))
}

before(async () => {
  server = await startServer({ agents: [...demoAgents, ...testAgents] })
})
after(() => server.close())

describe('Agent serves a valid AgentCard.json from a well-known endpoint (e.g., /agent-card.json)', () => {
  it('serves a card valid against the reference schema for every hosted agent and at the root', async () => {
    const bases = [server.url, ...[...demoAgents, ...testAgents].map((a) => agent(a.slug))]
    for (const base of bases) {
      const response = await request(`${base}/agent-card.json`)
      assert.equal(response.status, 200, base)
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/)
      assert.deepEqual(validateClawpediaCard(response.body), [], base)
    }
    const root = await request(`${server.url}/agent-card.json`)
    assert.equal(root.body.display_name, 'Python Script Generator')
    assert.equal(root.body.agent_id, 'f47ac10b-58cc-4372-a567-0e02b2c3d479')
  })
})

describe('Agent correctly implements all required API endpoints', () => {
  it('POST /tasks, GET /tasks/{id}, POST /tasks/{id}/cancel, GET /tasks/{id}/artifacts, GET /artifacts/{id}/content', async () => {
    const base = server.url
    const created = await createTask(base, {
      topic: 'print the first ten fibonacci numbers',
      filename: 'fib.py',
    })
    await statusesUntil(base, created.task_id)
    const fetched = await request(`${base}/tasks/${created.task_id}`)
    assert.equal(fetched.status, 200)
    assert.equal(fetched.body.status, 'COMPLETED')
    const artifacts = await request(`${base}/tasks/${created.task_id}/artifacts`)
    assert.equal(artifacts.status, 200)
    assert.equal(artifacts.body.artifacts.length, 1)
    const [file] = artifacts.body.artifacts
    const content = await fetch(file.content)
    assert.equal(content.status, 200)
    assert.equal(content.headers.get('content-type'), 'text/x-python')
    assert.match(content.headers.get('content-disposition') ?? '', /filename="fib\.py"/)
    assert.match(await content.text(), /def fibonacci/)

    const long = await createTask(agent('long-runner'), { steps: 100, step_ms: 50 })
    const cancelled = await request(`${agent('long-runner')}/tasks/${long.task_id}/cancel`, {
      method: 'POST',
    })
    assert.equal(cancelled.status, 202)
    assert.equal(cancelled.body.status, 'CANCELLED')
  })
})

describe('Submitted tasks correctly start in the SUBMITTED state and transition according to the specified lifecycle', () => {
  const allowed: Record<string, string[]> = {
    SUBMITTED: ['WORKING', 'CANCELLED', 'FAILED'],
    WORKING: ['INPUT_REQUIRED', 'COMPLETED', 'FAILED', 'CANCELLED'],
    INPUT_REQUIRED: ['WORKING', 'CANCELLED', 'FAILED'],
  }
  const assertLifecycle = (statuses: { status: string }[]) => {
    assert.equal(statuses[0]?.status, 'SUBMITTED')
    for (let i = 1; i < statuses.length; i++) {
      const from = statuses[i - 1]!.status
      const to = statuses[i]!.status
      assert.ok(allowed[from]?.includes(to), `${from} → ${to} is not in the reference's lifecycle`)
    }
  }

  it('202 carries the full task in SUBMITTED', async () => {
    const created = await createTask(agent('csv-analyst'), { csv: 'a,b\n1,2\n' })
    assert.equal(created.status, 'SUBMITTED')
    assert.deepEqual(validateClawpediaTask(created), [])
    assert.deepEqual(created.input, { csv: 'a,b\n1,2\n' })
  })

  it('SUBMITTED → WORKING → COMPLETED', async () => {
    const created = await createTask(agent('csv-analyst'), { csv: 'a,b\n1,2\n3,4\n' })
    const statuses = await statusesUntil(agent('csv-analyst'), created.task_id)
    assertLifecycle(statuses)
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['SUBMITTED', 'WORKING', 'COMPLETED'],
    )
  })

  it('SUBMITTED → WORKING → INPUT_REQUIRED → WORKING → COMPLETED (input provided)', async () => {
    const base = agent('report-builder')
    const created = await createTask(base, { subject: 'tide pools' })
    const asked = await statusesUntil(base, created.task_id, 'INPUT_REQUIRED')
    assert.equal(asked.at(-1).prompt, 'Which sections should the report on "tide pools" contain?')
    const answered = await request(`${base}/tasks/${created.task_id}/input`, {
      body: { input: { sections: ['Habitat', 'Species'] } },
    })
    assert.equal(answered.status, 202)
    const statuses = await statusesUntil(base, created.task_id)
    assertLifecycle(statuses)
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'WORKING', 'COMPLETED'],
    )
    assert.deepEqual(statuses.at(-1).output, {
      title: 'Report: tide pools',
      sections: ['Habitat', 'Species'],
    })
  })

  it('SUBMITTED → WORKING → FAILED and WORKING → CANCELLED', async () => {
    const failed = await createTask(agent('failing'), {})
    assertLifecycle(await statusesUntil(agent('failing'), failed.task_id))
    const long = await createTask(agent('long-runner'), { steps: 100, step_ms: 20 })
    await statusesUntil(agent('long-runner'), long.task_id, 'WORKING')
    await request(`${agent('long-runner')}/tasks/${long.task_id}/cancel`, { method: 'POST' })
    const statuses = await statusesUntil(agent('long-runner'), long.task_id)
    assertLifecycle(statuses)
    assert.equal(statuses.at(-1).status, 'CANCELLED')
  })
})

describe('Terminal states (COMPLETED, FAILED, CANCELLED) are final and immutable', () => {
  it('a terminal task refuses cancel and input with 409 and stays byte-for-byte unchanged', async () => {
    const completed = await createTask(agent('instant'), { n: 1 })
    const failed = await createTask(agent('failing'), {})
    const cancelled = await createTask(agent('long-runner'), { steps: 100, step_ms: 50 })
    await request(`${agent('long-runner')}/tasks/${cancelled.task_id}/cancel`, { method: 'POST' })
    const cases = [
      [agent('instant'), completed.task_id, 'COMPLETED'],
      [agent('failing'), failed.task_id, 'FAILED'],
      [agent('long-runner'), cancelled.task_id, 'CANCELLED'],
    ] as const
    for (const [base, id, state] of cases) {
      await statusesUntil(base, id)
      const before = await request(`${base}/tasks/${id}`)
      assert.equal(before.body.status, state)
      const cancel = await request(`${base}/tasks/${id}/cancel`, { method: 'POST' })
      assert.equal(cancel.status, 409)
      assert.equal(cancel.body.error.code, 'TASK_NOT_CANCELABLE')
      assert.match(cancel.body.error.message, new RegExp(state))
      const input = await request(`${base}/tasks/${id}/input`, { body: { input: {} } })
      assert.equal(input.status, 409)
      assert.equal(input.body.error.code, 'TASK_TERMINAL')
      const afterwards = await request(`${base}/tasks/${id}`)
      assert.deepEqual(afterwards.body, before.body)
      const events = await readSse(`${base}/tasks/${id}/stream`)
      assert.equal(
        events.events.filter((e) => e.event === 'status').at(-1)?.data,
        JSON.stringify(before.body),
      )
    }
  })
})

describe('The GET /tasks/{id}/stream endpoint provides a valid text/event-stream for tasks in the WORKING state', () => {
  it('streams log lines of a WORKING task with ids, then its terminal status, then closes', async () => {
    const base = agent('long-runner')
    const created = await createTask(base, { steps: 5, step_ms: 30 })
    const { status, headers, events, closedByServer } = await readSse(
      `${base}/tasks/${created.task_id}/stream`,
    )
    assert.equal(status, 200)
    assert.match(headers.get('content-type') ?? '', /^text\/event-stream/)
    assert.ok(closedByServer)
    const logs = events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data))
    assert.equal(logs.length, 5)
    for (const log of logs) {
      assert.match(log.timestamp, TIMESTAMP_PATTERN)
      assert.equal(log.level, 'INFO')
      assert.match(log.message, /^step \d\/5/)
    }
    const ids = events.map((e) => Number(e.id))
    assert.ok(
      ids.every((id, i) => i === 0 || id > ids[i - 1]!),
      `ids must increase: ${ids}`,
    )
    assert.equal(JSON.parse(events.at(-1)!.data).status, 'COMPLETED')
  })
})

describe('All generated artifacts conform to the Artifact schema', () => {
  it('file and json artifacts of the CSV analyst, file artifacts of the generator and the report builder', async () => {
    const csv = await createTask(agent('csv-analyst'), { csv: 'name,age\nada,36\nalan,41\ngrace,\n' })
    const script = await createTask(server.url, { topic: 'count words in a text file', filename: 'wc.py' })
    for (const [base, task] of [
      [agent('csv-analyst'), csv],
      [server.url, script],
    ] as const) {
      await statusesUntil(base, task.task_id)
      const { body } = await request(`${base}/tasks/${task.task_id}/artifacts`)
      assert.ok(body.artifacts.length > 0)
      for (const artifact of body.artifacts) {
        assert.deepEqual(validateClawpediaArtifact(artifact), [], JSON.stringify(artifact))
        assert.equal(artifact.task_id, task.task_id)
        const content = await fetch(
          artifact.type === 'file' ? artifact.content : `${base}/artifacts/${artifact.artifact_id}/content`,
        )
        assert.equal(content.status, 200)
        if (artifact.type === 'json') assert.deepEqual(await content.json(), JSON.parse(artifact.content))
      }
    }
    const { body } = await request(`${agent('csv-analyst')}/tasks/${csv.task_id}/artifacts`)
    assert.deepEqual(
      body.artifacts.map((a: { type: string }) => a.type),
      ['json', 'file'],
    )
    const chart = body.artifacts[1]
    assert.equal(chart.metadata.mime_type, 'image/svg+xml')
    assert.match(await (await fetch(chart.content)).text(), /^<svg /)
  })
})

describe('FAILED tasks include a structured error object in the task payload', () => {
  it('an AgentError, an unexpected throw and an output-schema violation each give {code, message}', async () => {
    const cases = [
      ['failing', 'BROKEN_PIPE', /the pipe broke: flood/],
      ['crashing', 'AGENT_ERROR', /unexpected null/],
      ['bad-output', 'OUTPUT_SCHEMA_VIOLATION', /\/output\/count must be integer/],
    ] as const
    for (const [slug, code, message] of cases) {
      const created = await createTask(agent(slug), { reason: 'flood' })
      const statuses = await statusesUntil(agent(slug), created.task_id)
      const failed = statuses.at(-1)
      assert.equal(failed.status, 'FAILED')
      assert.equal(failed.error.code, code)
      assert.match(failed.error.message, message)
      assert.deepEqual(validateClawpediaTask(failed), [])
      assert.deepEqual((await request(`${agent(slug)}/tasks/${created.task_id}`)).body, failed)
    }
  })
})

describe('All inputs, outputs, schemas, and timestamps conform to the formats defined in this reference', () => {
  it('input and output validate against the card schemas; ids are UUIDs; timestamps are ISO 8601 UTC with ms', async () => {
    const base = agent('csv-analyst')
    const card = (await request(`${base}/agent-card.json`)).body
    const validInput = compileSchema(card.input_schema)
    const validOutput = compileSchema(card.output_schema)
    const input = { csv: 'x;y\n1;2\n3;4\n', delimiter: ';' }
    assert.deepEqual(validInput(input), [])
    const created = await createTask(base, input)
    const done = (await statusesUntil(base, created.task_id)).at(-1)
    assert.deepEqual(validateClawpediaTask(done), [])
    assert.deepEqual(validOutput(done.output), [])
    assert.equal(done.output.rows, 2)
    assert.match(done.created_at, TIMESTAMP_PATTERN)
    assert.match(done.updated_at, TIMESTAMP_PATTERN)
    assert.ok(done.updated_at >= done.created_at)
    const rejected = await request(`${base}/tasks`, { body: { input: { delimiter: ';;' } } })
    assert.equal(rejected.status, 400)
    assert.equal(rejected.body.error.code, 'INPUT_SCHEMA_VIOLATION')
    assert.ok(rejected.body.error.details.violations.length >= 2)
  })
})

describe('Upon task status change, a valid push notification is sent to the configured notification_config.endpoint_url', () => {
  it('posts task.status.updated with the full task and the auth header, once per status change, in order', async () => {
    const receiver = await startReceiver()
    const pushed = await startServer({
      notifications: {
        'report-builder': { endpointUrl: receiver.url, authHeader: 'Authorization: Bearer hook-token' },
      },
    })
    try {
      const base = `${pushed.url}/agents/report-builder`
      const card = (await request(`${base}/agent-card.json`)).body
      assert.equal(card.notification_config.endpoint_url, receiver.url)
      assert.equal(card.notification_config.auth_header, undefined, 'the credential is not published')
      const created = await createTask(base, { subject: 'moths' })
      await statusesUntil(base, created.task_id, 'INPUT_REQUIRED')
      await request(`${base}/tasks/${created.task_id}/input`, { body: { input: { sections: ['Wings'] } } })
      await statusesUntil(base, created.task_id)
      const expected = ['SUBMITTED', 'WORKING', 'INPUT_REQUIRED', 'WORKING', 'COMPLETED']
      const deadline = Date.now() + 20_000
      while (receiver.received.length < expected.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20))
      assert.equal(receiver.received.length, expected.length)
      const bodies = receiver.received.map((r) => JSON.parse(r.body))
      assert.deepEqual(
        bodies.map((b) => b.data.status),
        expected,
      )
      for (const [i, received] of receiver.received.entries()) {
        assert.equal(received.headers.authorization, 'Bearer hook-token')
        assert.match(String(received.headers['content-type']), /^application\/json/)
        assert.match(
          String(received.headers['idempotency-key']),
          new RegExp(`^${created.task_id}:[^:]+:\\d+$`),
        )
        const body = bodies[i]
        assert.equal(body.event_type, 'task.status.updated')
        assert.match(body.timestamp, TIMESTAMP_PATTERN)
        assert.deepEqual(validateClawpediaTask(body.data), [])
        assert.equal(body.data.task_id, created.task_id)
      }
      assert.deepEqual(bodies.at(-1).data, (await request(`${base}/tasks/${created.task_id}`)).body)
    } finally {
      await pushed.close()
      await receiver.close()
    }
  })
})
