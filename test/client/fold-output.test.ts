import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { TaskFolder } from '../../src/client/fold.ts'

describe('the task fold', () => {
  it('derives the output at COMPLETED from an output artifact a WORKING snapshot brought', async () => {
    // An agent that publishes its output artifact and COMPLETED back to back: the subscription's
    // first snapshot can hold the artifact while still WORKING, and the artifact is not sent again.
    const folder = new TaskFolder({ id: 't1', dialect: 'a2a', state: 'WORKING' }, async () => undefined)
    await folder.apply({
      kind: 'task',
      snapshot: true,
      task: {
        id: 't1',
        dialect: 'a2a',
        state: 'WORKING',
        artifacts: [{ id: 'a1', name: 'output', type: 'json', value: { steps: 3 } }],
      },
    })
    assert.equal(folder.task.output, undefined)
    await folder.apply({ kind: 'status', state: 'COMPLETED' })
    assert.deepEqual(folder.task.output, { steps: 3 })
  })
})
