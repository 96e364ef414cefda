/** web/sse.ts `disconnectSignal`: what the blocking sends' waits are told when their client goes. */
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import { describe, it } from 'node:test'
import { disconnectSignal } from '../../src/web/sse.ts'

/** The two things the signal reads of a response: its 'close' and whether it had finished. */
const response = (): EventEmitter & { writableFinished: boolean } =>
  Object.assign(new EventEmitter(), { writableFinished: false })

describe('the disconnect signal of a response', () => {
  it('aborts once, telling each listener still added, when the response closes unfinished', () => {
    const res = response()
    const signal = disconnectSignal(res as unknown as ServerResponse)
    const heard: string[] = []
    const first = () => heard.push('first')
    const removed = () => heard.push('removed')
    signal.addEventListener('abort', first)
    signal.addEventListener('abort', removed)
    signal.addEventListener('abort', () => heard.push('last'))
    signal.removeEventListener('abort', removed)
    assert.equal(signal.aborted, false)
    res.emit('close')
    assert.equal(signal.aborted, true)
    assert.deepEqual(heard, ['first', 'last'])
    res.emit('close')
    assert.deepEqual(heard, ['first', 'last'], 'a second close tells nobody again')
    signal.addEventListener('abort', () => heard.push('late'))
    assert.deepEqual(heard, ['first', 'last'], 'as on an AbortSignal, a late listener is not called')
  })

  it('does not abort when the response finished before it closed', () => {
    const res = response()
    const signal = disconnectSignal(res as unknown as ServerResponse)
    let heard = 0
    signal.addEventListener('abort', () => heard++)
    res.writableFinished = true
    res.emit('close')
    assert.equal(signal.aborted, false)
    assert.equal(heard, 0)
  })
})
