import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { EventBody } from '../../../src/model/events.ts'
import { newId } from '../../../src/model/ids.ts'
import {
  A2A,
  assertSameTask,
  CLAWPEDIA,
  type CurrentStore,
  completed,
  create,
  createTask,
  FOREIGN_SCOPES,
  fileArtifact,
  rejectsWith,
  SCOPE,
  status,
  textArtifact,
  workingTask,
} from './fixtures.ts'

/** append: sequencing, the fold, every refusal, artifacts, requestRun. */
export const appendCases = (store: CurrentStore): void => {
  describe('append', () => {
    it('a long run of logs and artifacts, read at every step, is always the exact fold of the log', async () => {
      const task = await workingTask(store())
      const artifacts = []
      for (let i = 0; i < 150; i++) {
        const events: EventBody[] = [{ kind: 'log', level: 'INFO', message: `line ${i}` }]
        if (i % 10 === 0) {
          const artifact = textArtifact(task.id, `draft ${i}`)
          artifacts.push(artifact)
          events.push({ kind: 'artifact', artifact })
        }
        const { events: written } = await store().append({ taskId: task.id, events })
        if (i % 37 === 0 || i === 149) {
          const current = await store().getTask(SCOPE, task.id)
          assert.equal(current?.version, written.at(-1)!.seq)
          assert.equal(current?.logCount, i + 1)
          assert.deepEqual(current?.artifacts, artifacts)
          const listed = await store().listTasks(SCOPE, { pageSize: 100 })
          assertSameTask(
            listed.tasks.find((t) => t.id === task.id),
            current,
          )
        }
      }
      const done = await store().append({ taskId: task.id, events: [completed] })
      assert.equal(done.task.logCount, 150)
      assert.equal(done.task.artifacts.length, 15)
      assertSameTask(await store().getTask(SCOPE, task.id), done.task)
      const log = await store().readEvents(task.id, 0, 10_000)
      assert.deepEqual(
        log.map((e) => e.seq),
        log.map((_, i) => i + 1),
      )
      await rejectsWith(
        store().append({ taskId: task.id, events: [{ kind: 'log', level: 'INFO', message: 'late' }] }),
        'TASK_TERMINAL',
      )
    })

    it('an A2A endpoint hears of each artifact with the task as it was at that artifact', async () => {
      const { task } = await create(store(), { pushTargets: [A2A] })
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      const first = textArtifact(task.id, 'one')
      const second = textArtifact(task.id, 'two')
      await store().append({ taskId: task.id, events: [{ kind: 'artifact', artifact: first }] })
      await store().append({
        taskId: task.id,
        events: [
          { kind: 'log', level: 'INFO', message: 'between' },
          { kind: 'artifact', artifact: second },
        ],
      })
      const deliveries = (await store().listDeliveries({ taskId: task.id, limit: 50 })).filter(
        (d) => d.event.kind === 'artifact',
      )
      const bySeq = new Map(deliveries.map((d) => [d.seq, d]))
      assert.equal(deliveries.length, 2)
      const [a, b] = [...bySeq.keys()].sort((x, y) => x - y)
      assert.deepEqual(
        bySeq.get(a!)!.task.artifacts.map((x) => x.id),
        [first.id],
      )
      assert.deepEqual(
        bySeq.get(b!)!.task.artifacts.map((x) => x.id),
        [first.id, second.id],
      )
      assert.equal(bySeq.get(b!)!.task.logCount, 1)
      assert.equal(bySeq.get(b!)!.task.version, b)
    })

    it('keeps every character of what several tasks write at once: controls, separators, quotes', async () => {
      // Writes of one turn share a commit where the store batches them: each column's documents
      // then travel together, and must come apart exactly where they were joined.
      const text = 'a\u001e"b",\\c\u001f\u0000 \u2028 ☃ 😀 ]}'
      const tasks = await Promise.all([workingTask(store()), workingTask(store())])
      const written = await Promise.all(
        tasks.map((task) =>
          store().append({
            taskId: task.id,
            events: [
              { kind: 'log', level: 'INFO', message: text },
              { kind: 'artifact', artifact: textArtifact(task.id, `${text}${task.id}`) },
            ],
          }),
        ),
      )
      for (const [i, task] of tasks.entries()) {
        const { events, task: after } = written[i]!
        assert.deepEqual(await store().readEvents(task.id, task.version), events)
        assertSameTask(await store().getTask(SCOPE, task.id), after)
        const artifact = after.artifacts[0]!
        assert.equal(artifact.type === 'text' && artifact.text, `${text}${task.id}`)
      }
    })

    it('numbers events consecutively after the version and stores the fold', async () => {
      const task = await createTask(store())
      const first = await store().append({ taskId: task.id, scope: SCOPE, events: [status('WORKING')] })
      assert.deepEqual(
        first.events.map((e) => e.seq),
        [3],
      )
      const artifact = textArtifact(task.id)
      const second = await store().append({
        taskId: task.id,
        events: [
          { kind: 'log', level: 'INFO', message: 'step' },
          { kind: 'artifact', artifact },
        ],
      })
      assert.deepEqual(
        second.events.map((e) => e.seq),
        [4, 5],
      )
      assert.equal(second.events[0]?.at, second.events[1]?.at, 'one append, one timestamp')
      assert.equal(second.task.version, 5)
      assert.equal(second.task.state, 'WORKING')
      assert.equal(second.task.logCount, 1)
      assert.deepEqual(second.task.artifacts, [artifact])
      assertSameTask(await store().getTask(SCOPE, task.id), second.task)
      const log = await store().readEvents(task.id, 0)
      assert.deepEqual(
        log.map((e) => [e.seq, e.kind]),
        [
          [1, 'input'],
          [2, 'status'],
          [3, 'status'],
          [4, 'log'],
          [5, 'artifact'],
        ],
      )
      assert.deepEqual(log.slice(2), [...first.events, ...second.events])
    })

    it('refuses an unknown task and a task outside the scope with TASK_NOT_FOUND, writing nothing', async () => {
      const task = await createTask(store())
      await rejectsWith(store().append({ taskId: newId(), events: [status('WORKING')] }), 'TASK_NOT_FOUND')
      for (const scope of FOREIGN_SCOPES) {
        await rejectsWith(
          store().append({ taskId: task.id, scope, events: [status('WORKING')] }),
          'TASK_NOT_FOUND',
        )
      }
      assert.equal((await store().getTask(SCOPE, task.id))?.version, 2)
      assert.equal((await store().readEvents(task.id, 0)).length, 2)
    })

    it('refuses anything after a terminal state with TASK_TERMINAL', async () => {
      const task = await workingTask(store())
      const done = await store().append({ taskId: task.id, events: [completed] })
      assert.equal(done.task.state, 'COMPLETED')
      assert.deepEqual(done.task.output, { ok: true })
      for (const events of [
        [status('CANCELLED')],
        [{ kind: 'log' as const, level: 'INFO' as const, message: 'late' }],
      ]) {
        await rejectsWith(store().append({ taskId: task.id, events }), 'TASK_TERMINAL')
      }
      assertSameTask(await store().getTask(SCOPE, task.id), done.task)
      assert.equal((await store().readEvents(task.id, 0)).length, 4)
    })

    it('refuses a transition the table forbids with INVALID_TRANSITION, atomically', async () => {
      const task = await createTask(store())
      await rejectsWith(store().append({ taskId: task.id, events: [completed] }), 'INVALID_TRANSITION')
      // The log event before the bad status is rolled back with it.
      await rejectsWith(
        store().append({
          taskId: task.id,
          events: [{ kind: 'log', level: 'INFO', message: 'x' }, status('INPUT_REQUIRED', { prompt: '?' })],
        }),
        'INVALID_TRANSITION',
      )
      assertSameTask(await store().getTask(SCOPE, task.id), task)
      assert.equal((await store().readEvents(task.id, 0)).length, 2)
    })

    it('refuses an answer while the task is not waiting for input with TASK_NOT_AWAITING_INPUT', async () => {
      const task = await workingTask(store())
      await rejectsWith(
        store().append({ taskId: task.id, events: [{ kind: 'input', input: { a: 1 } }] }),
        'TASK_NOT_AWAITING_INPUT',
      )
      await store().append({ taskId: task.id, events: [status('INPUT_REQUIRED', { prompt: 'name?' })] })
      const answered = await store().append({
        taskId: task.id,
        events: [{ kind: 'input', input: { a: 1 }, text: 'one' }, status('WORKING')],
      })
      assert.deepEqual(answered.task.answers, [{ input: { a: 1 }, text: 'one' }])
    })

    it('refuses a write from a runner that does not hold the lease with LEASE_LOST', async () => {
      const { task } = await create(store(), { lease: { owner: 'runner-1', ttlMs: 60_000 } })
      await rejectsWith(
        store().append({ taskId: task.id, events: [status('WORKING')], leaseOwner: 'runner-2' }),
        'LEASE_LOST',
      )
      const ok = await store().append({
        taskId: task.id,
        events: [status('WORKING')],
        leaseOwner: 'runner-1',
      })
      assert.equal(ok.task.state, 'WORKING')
      const unleased = await createTask(store())
      await rejectsWith(
        store().append({ taskId: unleased.id, events: [status('WORKING')], leaseOwner: 'runner-1' }),
        'LEASE_LOST',
      )
      // Writes without leaseOwner (cancel, answers) are not lease-checked.
      await store().append({ taskId: task.id, events: [status('CANCELLED')] })
    })

    it('stores artifacts, with file bytes readable by getArtifact in the scope', async () => {
      const task = await workingTask(store())
      const bytes = new Uint8Array([0, 1, 2, 250, 255])
      const file = fileArtifact(task.id, bytes.length)
      const text = textArtifact(task.id, 'notes')
      await store().append({
        taskId: task.id,
        events: [
          { kind: 'artifact', artifact: file },
          { kind: 'artifact', artifact: text },
        ],
        blobs: new Map([[file.id, bytes]]),
      })
      const stored = await store().getArtifact(SCOPE, file.id)
      assert.deepEqual(stored?.artifact, file)
      assert.ok(stored?.bytes)
      assert.deepEqual([...stored.bytes], [...bytes])
      const storedText = await store().getArtifact(SCOPE, text.id)
      assert.deepEqual(storedText, { artifact: text })
      for (const scope of FOREIGN_SCOPES) assert.equal(await store().getArtifact(scope, file.id), undefined)
      assert.equal(await store().getArtifact(SCOPE, newId()), undefined)
    })

    it('stores every artifact of a batch, whatever its size, each found by its id at its own event', async () => {
      // 1 to 40 artifacts a batch, quiet and folded into the snapshot (an append that brings push
      // targets, none here, is folded): the SQLite store writes a batch's rows by powers of two,
      // so each size is its own split.
      for (const folded of [false, true]) {
        const task = await workingTask(store())
        const all = []
        for (let size = 1; size <= 40; size++) {
          const artifacts = Array.from({ length: size }, (_, i) => textArtifact(task.id, `${size}.${i}`))
          const events: EventBody[] = artifacts.map((artifact) => ({ kind: 'artifact', artifact }))
          const { events: written } = await store().append({
            taskId: task.id,
            events,
            ...(folded && { pushTargets: [] }),
          })
          for (const [i, artifact] of artifacts.entries()) {
            const stored = await store().getArtifact(SCOPE, artifact.id)
            assert.deepEqual(stored, { artifact }, `artifact ${i} of a batch of ${size}`)
            assert.equal(written[i]!.kind, 'artifact')
          }
          all.push(...artifacts)
        }
        assert.deepEqual((await store().getTask(SCOPE, task.id))?.artifacts, all)
      }
    })

    it('notifies status changes to every config and artifacts to A2A configs only', async () => {
      const { task } = await create(store(), { pushTargets: [CLAWPEDIA, A2A] })
      await store().append({
        taskId: task.id,
        events: [status('WORKING'), { kind: 'artifact', artifact: textArtifact(task.id) }],
      })
      const deliveries = await store().listDeliveries({ taskId: task.id, limit: 20 })
      const kinds = (target: string) =>
        deliveries
          .filter((d) => d.target.kind === target)
          .map((d) => d.seq)
          .sort()
      assert.deepEqual(kinds('clawpedia'), [2, 3])
      assert.deepEqual(kinds('a2a'), [2, 3, 4])
      const atWorking = deliveries.find((d) => d.seq === 3)
      assert.equal(atWorking?.task.state, 'WORKING')
      assert.equal(atWorking?.task.version, 3, 'a delivery carries the task as it was at its event')
    })

    it('marks the task runnable again with requestRun (an answer arrived)', async () => {
      const { task } = await create(store(), { lease: { owner: 'runner-1', ttlMs: 60_000 } })
      await store().append({ taskId: task.id, events: [status('WORKING')], leaseOwner: 'runner-1' })
      await store().append({
        taskId: task.id,
        events: [status('INPUT_REQUIRED', { prompt: 'more?' })],
        leaseOwner: 'runner-1',
      })
      await store().releaseLease('runner-1', task.id)
      assert.deepEqual(await store().claimTasks({ owner: 'runner-2', limit: 10, ttlMs: 60_000 }), [])
      await store().append({
        taskId: task.id,
        scope: SCOPE,
        events: [{ kind: 'input', input: { more: true } }, status('WORKING')],
        requestRun: true,
      })
      const claimed = await store().claimTasks({ owner: 'runner-2', limit: 10, ttlMs: 60_000 })
      assert.equal(claimed.length, 1)
      assert.equal(claimed[0]?.task.id, task.id)
      assert.equal(claimed[0]?.interrupted, false)
      assert.deepEqual(claimed[0]?.task.answers, [{ input: { more: true } }])
    })
  })
}
