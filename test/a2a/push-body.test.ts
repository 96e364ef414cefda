/** The A2A 1.0 webhook body and headers, from outbox rows built by hand. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { renderA2aPush } from '../../src/dialects/a2a/push-body.ts'
import type { A2aPushTarget } from '../../src/dialects/a2a/push-target.ts'
import type { Artifact } from '../../src/model/artifacts.ts'
import type { Task } from '../../src/model/task.ts'
import { checkA2a } from '../helpers/a2a-schema.ts'
import { deliveryOf, echoTask } from '../push/helpers.ts'

const TASK_ID = '5d1e6a0c-3b7f-4c2a-9e8d-1f2a3b4c5d6e'
const AT = '2026-01-02T03:04:05.678Z'
const BASE = 'https://switchboard.example/agents/echo'

const taskAt = (patch: Partial<Task>): Task => echoTask({ id: TASK_ID, createdAt: AT }, patch)

const a2a: A2aPushTarget = {
  kind: 'a2a',
  url: 'https://hooks.example/a2a',
  artifacts: true,
  token: 'opaque-token',
  authentication: { scheme: 'Bearer', credentials: 'secret' },
}

describe('renderA2aPush', () => {
  it('a status change is a statusUpdate StreamResponse with the auth headers', () => {
    const task = taskAt({ state: 'COMPLETED', statusAt: AT, version: 5, output: { ok: true } })
    const { body, headers } = renderA2aPush(
      deliveryOf({ kind: 'status', state: 'COMPLETED', output: { ok: true }, seq: 5, at: AT }, task, a2a),
      BASE,
    )
    const payload = JSON.parse(body)
    checkA2a('StreamResponse', payload)
    assert.deepEqual(payload, {
      statusUpdate: {
        taskId: TASK_ID,
        contextId: 'ctx-1',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: AT },
      },
    })
    assert.deepEqual(headers, {
      'content-type': 'application/a2a+json',
      authorization: 'Bearer secret',
      'x-a2a-notification-token': 'opaque-token',
    })
  })

  it('an INPUT_REQUIRED status carries the question; no auth configured means no auth headers', () => {
    const task = taskAt({
      state: 'INPUT_REQUIRED',
      prompt: 'Which sections?',
      statusMessageId: 'msg-9',
      version: 4,
    })
    const { body, headers } = renderA2aPush(
      deliveryOf(
        {
          kind: 'status',
          state: 'INPUT_REQUIRED',
          prompt: 'Which sections?',
          messageId: 'msg-9',
          seq: 4,
          at: AT,
        },
        task,
        {
          kind: 'a2a',
          url: 'https://hooks.example/a2a',
        },
      ),
      BASE,
    )
    const payload = JSON.parse(body)
    checkA2a('StreamResponse', payload)
    assert.equal(payload.statusUpdate.status.state, 'TASK_STATE_INPUT_REQUIRED')
    assert.deepEqual(payload.statusUpdate.status.message, {
      messageId: 'msg-9',
      role: 'ROLE_AGENT',
      parts: [{ text: 'Which sections?' }],
      contextId: 'ctx-1',
      taskId: TASK_ID,
    })
    assert.deepEqual(headers, { 'content-type': 'application/a2a+json' })
  })

  it('an artifact is an artifactUpdate; a file links to the content endpoint of the mount', () => {
    const artifact: Artifact = {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      taskId: TASK_ID,
      createdAt: AT,
      type: 'file',
      filename: 'report.md',
      mediaType: 'text/markdown',
      size: 10,
      name: 'report',
    }
    const { body } = renderA2aPush(
      deliveryOf({ kind: 'artifact', artifact, seq: 6, at: AT }, taskAt({ state: 'WORKING' }), {
        ...a2a,
        authentication: { scheme: 'Token' },
      }),
      `${BASE}/`,
    )
    const payload = JSON.parse(body)
    checkA2a('StreamResponse', payload)
    assert.deepEqual(payload.artifactUpdate, {
      taskId: TASK_ID,
      contextId: 'ctx-1',
      artifact: {
        artifactId: artifact.id,
        name: 'report',
        parts: [
          {
            url: `${BASE}/artifacts/${artifact.id}/content`,
            mediaType: 'text/markdown',
            filename: 'report.md',
          },
        ],
      },
      lastChunk: true,
    })
  })

  it('refuses rows that are not A2A status or artifact notifications', () => {
    const task = taskAt({ state: 'WORKING' })
    assert.throws(
      () =>
        renderA2aPush(
          deliveryOf({ kind: 'status', state: 'WORKING', seq: 3, at: AT }, task, {
            kind: 'clawpedia',
            url: 'https://x',
          }),
          BASE,
        ),
      TypeError,
    )
    assert.throws(
      () =>
        renderA2aPush(
          deliveryOf({ kind: 'log', level: 'INFO', message: 'x', seq: 3, at: AT }, task, a2a),
          BASE,
        ),
      TypeError,
    )
  })
})
