import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Artifact } from '../../../src/model/artifacts.ts'
import type { EventBody } from '../../../src/model/events.ts'
import { fold, headerOf } from '../../../src/model/fold.ts'
import { newId } from '../../../src/model/ids.ts'
import { nowIso } from '../../../src/model/time.ts'
import {
  A2A,
  assertSameTask,
  type CurrentStore,
  completed,
  create,
  rejectsWith,
  SCOPE,
  status,
  textArtifact,
  workingTask,
} from './fixtures.ts'

/** A streamed artifact as it opens (ctx.artifactStream). */
const opening = (taskId: string): Artifact => ({
  id: newId(),
  taskId,
  type: 'text',
  text: '',
  mediaType: 'text/markdown',
  createdAt: nowIso(),
  stream: { chunks: 0, done: false },
})

const chunk = (artifactId: string, text: string, lastChunk = false): EventBody => ({
  kind: 'chunk',
  artifactId,
  text,
  lastChunk,
})

const message = (text: string) => ({
  messageId: newId(),
  role: 'agent' as const,
  parts: [{ kind: 'text' as const, text }],
})

const textOf = (artifact: Artifact | undefined): string | undefined =>
  artifact?.type === 'text' ? artifact.text : undefined

/** Streamed artifacts: chunk events fold into their artifact; every backend reads the same. */
export const chunkCases = (store: CurrentStore): void => {
  describe('streamed artifacts', () => {
    it('fold their chunks into the artifact, over hundreds of appends and at every read', async () => {
      const task = await workingTask(store())
      const story = opening(task.id)
      // The opening shares its append with the first chunks: the stored opening stays empty.
      await store().append({
        taskId: task.id,
        events: [{ kind: 'artifact', artifact: story }, chunk(story.id, 'a'), chunk(story.id, 'b')],
      })
      let expected = 'ab'
      for (let i = 0; i < 300; i++) {
        const events: EventBody[] = [chunk(story.id, `${i},`)]
        if (i % 7 === 0) events.push({ kind: 'log', level: 'INFO', message: `line ${i}` })
        await store().append({ taskId: task.id, events })
        expected += `${i},`
        if (i % 61 === 0) {
          const current = await store().getTask(SCOPE, task.id)
          assert.equal(textOf(current?.artifacts[0]), expected)
          assert.deepEqual(current?.artifacts[0]?.stream, { chunks: i + 3, done: false })
        }
      }
      const { task: ended } = await store().append({
        taskId: task.id,
        events: [chunk(story.id, '.', true), completed],
      })
      expected += '.'
      assert.equal(textOf(ended.artifacts[0]), expected)
      assert.deepEqual(ended.artifacts[0]?.stream, { chunks: 303, done: true })
      const read = await store().getTask(SCOPE, task.id)
      assertSameTask(read, ended)
      const listed = await store().listTasks(SCOPE, { pageSize: 100 })
      assertSameTask(
        listed.tasks.find((t) => t.id === task.id),
        ended,
      )
      const log = await store().readEvents(task.id, 0, 10_000)
      const first = log.find((e) => e.kind === 'artifact')
      assert.equal(first?.kind === 'artifact' && textOf(first.artifact), '', 'the opening event as written')
      assert.equal(log.filter((e) => e.kind === 'chunk').length, 303)
      // The artifact row is the artifact as it opened: the chunks are events, the text is the fold's.
      const stored = await store().getArtifact(SCOPE, story.id)
      assert.equal(textOf(stored?.artifact), '')
      assert.deepEqual(stored?.artifact.stream, { chunks: 0, done: false })
    })

    it('between status changes, in batches with them or apart, read at every step: the exact fold of the log', async () => {
      // A store may keep the artifacts apart from the rest of its snapshot, at an older version
      // (SQLite does): status changes here fold the task with artifacts and chunks before, in and
      // after them, past every backend's refresh interval, and the task ends with a batch of both.
      const task = await workingTask(store())
      const story = opening(task.id)
      await store().append({ taskId: task.id, events: [{ kind: 'artifact', artifact: story }] })
      const readBack = async (): Promise<void> => {
        const log = await store().readEvents(task.id, 0, 100_000)
        const expected = fold(headerOf(task), log)
        assertSameTask(await store().getTask(SCOPE, task.id), expected, `at version ${expected.version}`)
        const listed = await store().listTasks(SCOPE, { pageSize: 100 })
        assertSameTask(
          listed.tasks.find((t) => t.id === task.id),
          expected,
        )
      }
      for (let i = 0; i < 160; i++) {
        const events: EventBody[] = []
        if (i % 3 !== 2) events.push(chunk(story.id, `${i} `))
        if (i % 5 === 0) events.push({ kind: 'artifact', artifact: textArtifact(task.id, `note ${i}`) })
        // A status while WORKING: the WORKING update that says something (a status change to fold).
        if (i % 4 === 1 || i % 50 === 49) events.push(status('WORKING', { message: message(`step ${i}`) }))
        if (events.length === 0) events.push({ kind: 'log', level: 'INFO', message: `line ${i}` })
        await store().append({ taskId: task.id, events })
        if (i % 9 === 0 || i > 150) await readBack()
      }
      await store().append({
        taskId: task.id,
        events: [
          chunk(story.id, 'end', true),
          { kind: 'artifact', artifact: textArtifact(task.id, 'last') },
          completed,
        ],
      })
      await readBack()
      const done = await store().getTask(SCOPE, task.id)
      assert.equal(done?.state, 'COMPLETED')
      assert.deepEqual(done?.artifacts[0]?.stream, { chunks: 108, done: true })
      assert.equal(done?.artifacts.length, 34)
    })

    it('refuse a chunk after the task is terminal, writing nothing', async () => {
      const task = await workingTask(store())
      const story = opening(task.id)
      await store().append({ taskId: task.id, events: [{ kind: 'artifact', artifact: story }] })
      await store().append({ taskId: task.id, events: [status('CANCELLED')] })
      await rejectsWith(
        store().append({ taskId: task.id, events: [chunk(story.id, 'late', true)] }),
        'TASK_TERMINAL',
      )
      const read = await store().getTask(SCOPE, task.id)
      assert.equal(textOf(read?.artifacts[0]), '')
      assert.equal(read?.state, 'CANCELLED')
    })

    it('notify an artifact endpoint of the opening and of the last chunk only, with the task then', async () => {
      const { task } = await create(store(), { pushTargets: [A2A] })
      await store().append({ taskId: task.id, events: [status('WORKING')] })
      const story = opening(task.id)
      await store().append({ taskId: task.id, events: [{ kind: 'artifact', artifact: story }] })
      for (let i = 0; i < 20; i++) await store().append({ taskId: task.id, events: [chunk(story.id, 'x')] })
      await store().append({ taskId: task.id, events: [chunk(story.id, 'y', true)] })
      const deliveries = await store().listDeliveries({ taskId: task.id, limit: 100 })
      const kinds = deliveries.map((d) => d.event.kind).sort()
      assert.deepEqual(kinds, ['artifact', 'chunk', 'status', 'status'])
      const last = deliveries.find((d) => d.event.kind === 'chunk')
      assert.equal(
        textOf(last?.task.artifacts[0]),
        `${'x'.repeat(20)}y`,
        'the task as it was at the last chunk',
      )
      assert.deepEqual(last?.task.artifacts[0]?.stream, { chunks: 21, done: true })
    })
  })
}
