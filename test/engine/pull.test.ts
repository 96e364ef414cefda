/**
 * Pulling (engine/pull.ts): the way an open stream waits for its next item without a promise. A
 * pull gives a result at once or PENDING, and then wakes its waker once, never inside the pull;
 * `nextOf` is the same steps for consumers that iterate, and PulledIterator pulls a plain async
 * iterator (a generator) with one `next()` in flight at a time.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DONE,
  nextOf,
  PENDING,
  type Pullable,
  type Pulled,
  PulledIterator,
  type Waker,
} from '../../src/engine/pull.ts'
import { countingWaker } from './counting-waker.ts'

/** Gives the values it is handed (`give`), PENDING until then; `fail` makes the next pull throw. */
class Handed implements Pullable<number> {
  #values: number[] = []
  #waker: Waker | undefined
  #failure: Error | undefined
  ended = false
  give(value: number): void {
    this.#values.push(value)
    const waker = this.#waker
    this.#waker = undefined
    if (waker) queueMicrotask(() => waker.wake())
  }
  fail(error: Error): void {
    this.#failure = error
    const waker = this.#waker
    this.#waker = undefined
    if (waker) queueMicrotask(() => waker.wake())
  }
  pull(waker: Waker): Pulled<number> {
    if (this.#failure) throw this.#failure
    if (this.ended) return DONE
    const value = this.#values.shift()
    if (value !== undefined) return { done: false, value }
    this.#waker = waker
    return PENDING
  }
  async return(): Promise<IteratorResult<number, undefined>> {
    this.ended = true
    return DONE
  }
}

describe('nextOf', () => {
  it('resolves at once with what is ready, and after the wake-up with what was not', async () => {
    const source = new Handed()
    source.give(1)
    assert.deepEqual(await nextOf(source), { done: false, value: 1 })
    const waiting = nextOf(source)
    source.give(2)
    assert.deepEqual(await waiting, { done: false, value: 2 })
    await source.return()
    assert.deepEqual(await nextOf(source), DONE)
  })

  it('rejects with what the pull throws, waiting or not', async () => {
    const source = new Handed()
    const waiting = nextOf(source)
    source.fail(new Error('gone'))
    await assert.rejects(waiting, /gone/)
    await assert.rejects(nextOf(source), /gone/)
  })
})

describe('PulledIterator', () => {
  it("pulls a generator's items in order, one next() in flight at a time, and its end", async () => {
    let asked = 0
    async function* three() {
      for (let i = 1; i <= 3; i++) {
        asked++
        yield i
      }
    }
    const pulled = new PulledIterator(three())
    const seen: number[] = []
    for (;;) {
      const { waker, woken } = countingWaker()
      const step = pulled.pull(waker)
      assert.equal(step, PENDING, 'a generator is never ready before its next() settles')
      assert.equal(pulled.pull(waker), PENDING, 'a second pull while one waits asks for nothing more')
      await woken
      const result = pulled.pull(waker)
      assert.notEqual(result, PENDING)
      if (result === PENDING || result.done) break
      seen.push(result.value)
    }
    assert.deepEqual(seen, [1, 2, 3])
    assert.equal(asked, 3)
  })

  it('throws the failure once, at the pull after the wake-up', async () => {
    // biome-ignore lint/correctness/useYield: a generator that fails at its first step
    async function* failing(): AsyncGenerator<number, undefined> {
      throw new Error('broken')
    }
    const pulled = new PulledIterator(failing())
    const { waker, woken, wakes } = countingWaker()
    assert.equal(pulled.pull(waker), PENDING)
    await woken
    assert.equal(wakes(), 1)
    assert.throws(() => pulled.pull(waker), /broken/)
  })

  it("return() ends the iterator it pulls (a generator's finally runs)", async () => {
    let finalised = false
    async function* endless() {
      try {
        for (;;) yield 1
      } finally {
        finalised = true
      }
    }
    const pulled = new PulledIterator(endless())
    const { waker, woken } = countingWaker()
    pulled.pull(waker)
    await woken
    assert.deepEqual(pulled.pull(waker), { done: false, value: 1 })
    assert.deepEqual(await pulled.return(), DONE)
    assert.equal(finalised, true)
  })
})
