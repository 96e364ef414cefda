import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { StreamItem } from '../../bench/client/a2a.ts'
import { checkTokenStream, VerificationError } from '../../bench/client/verify.ts'
import { TOKENS_ARTIFACT, tokenText } from '../../bench/protocol.ts'

const TASK = 'task-1'
const CHUNKS = 5

const piece = (text: string, append: boolean, lastChunk = false, artifactId = 'art-1'): StreamItem => ({
  artifactUpdate: {
    taskId: TASK,
    artifact: { artifactId, name: TOKENS_ARTIFACT, parts: [{ text }] },
    append,
    lastChunk,
  },
})
const status = (state: string): StreamItem => ({ statusUpdate: { taskId: TASK, status: { state } } })
const start: StreamItem = { task: { id: TASK, contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } }
const completed = status('TASK_STATE_COMPLETED')

/** The SDK's way: the first update creates the artifact with piece 0, the last one ends it. */
const sdkStyle = (): StreamItem[] => [
  start,
  status('TASK_STATE_WORKING'),
  ...Array.from({ length: CHUNKS }, (_, i) => piece(tokenText(i), i > 0, i === CHUNKS - 1)),
  completed,
]

/** Switchboard's way: an empty opening, then every piece appended, the last with lastChunk. */
const switchboardStyle = (): StreamItem[] => [
  start,
  status('TASK_STATE_WORKING'),
  piece('', false),
  ...Array.from({ length: CHUNKS }, (_, i) => piece(tokenText(i), true, i === CHUNKS - 1)),
  completed,
]

const refused = (items: StreamItem[], message: RegExp) =>
  assert.throws(
    () => checkTokenStream(items, CHUNKS),
    (error: Error) => {
      assert.ok(error instanceof VerificationError)
      assert.match(error.message, message)
      return true
    },
  )

describe('the token stream check', () => {
  it('takes the SDK’s and Switchboard’s ways of streaming one artifact', () => {
    checkTokenStream(sdkStyle(), CHUNKS)
    checkTokenStream(switchboardStyle(), CHUNKS)
    // An empty last chunk after the pieces (a stream ended with nothing more to say).
    const endedEmpty = switchboardStyle()
    endedEmpty[endedEmpty.length - 2] = piece(tokenText(CHUNKS - 1), true)
    endedEmpty.splice(endedEmpty.length - 1, 0, piece('', true, true))
    checkTokenStream(endedEmpty, CHUNKS)
  })

  it('refuses pieces out of order, missing or repeated', () => {
    const swapped = sdkStyle()
    ;[swapped[3], swapped[4]] = [piece(tokenText(2), true), piece(tokenText(1), true)]
    refused(swapped, /piece 1 is "t2 "/)
    const missing = sdkStyle()
    missing.splice(4, 1)
    refused(missing, /piece 2 is "t3 "/)
    const repeated = sdkStyle()
    repeated.splice(4, 0, piece(tokenText(1), true))
    refused(repeated, /piece 2 is "t1 "/)
  })

  it('refuses a stream that stops short, ends without COMPLETED, or never ends the artifact', () => {
    refused(sdkStyle().slice(0, -1), /artifact update out of place|does not end COMPLETED/)
    const failed = sdkStyle()
    failed[failed.length - 1] = status('TASK_STATE_FAILED')
    refused(failed, /ends TASK_STATE_FAILED/)
    const unended = sdkStyle()
    unended[unended.length - 2] = piece(tokenText(CHUNKS - 1), true, false)
    refused(unended, /never had its last chunk/)
    const few = sdkStyle()
    few.splice(few.length - 2, 1)
    few[few.length - 2] = piece(tokenText(CHUNKS - 2), true, true)
    refused(few, /has 4 pieces, expected 5/)
  })

  it('refuses an append flag out of place, a second artifact, and anything after the last chunk', () => {
    const notAppended = sdkStyle()
    notAppended[3] = piece(tokenText(1), false)
    refused(notAppended, /update 1 has append false/)
    const appendFirst = sdkStyle()
    appendFirst[2] = piece(tokenText(0), true)
    refused(appendFirst, /update 0 has append true/)
    const other = sdkStyle()
    other[3] = piece(tokenText(1), true, false, 'art-2')
    refused(other, /more than one artifact/)
    const after = sdkStyle()
    after.splice(after.length - 1, 0, piece('', true))
    refused(after, /after the last chunk/)
    const emptyMiddle = sdkStyle()
    emptyMiddle.splice(3, 0, piece('', true))
    refused(emptyMiddle, /update 1 is an empty piece/)
  })

  it('refuses a stream that does not start with its Task, or mixes tasks', () => {
    refused(sdkStyle().slice(1), /does not start with the Task/)
    const mixed = sdkStyle()
    mixed[1] = { statusUpdate: { taskId: 'other', status: { state: 'TASK_STATE_WORKING' } } }
    refused(mixed, /another task/)
  })
})
