/**
 * Pulling a stream step by step without a promise per step: `pull(waker)` gives the next result
 * at once, or PENDING, and then calls `waker.wake()` once (never inside that `pull()`) when pulling
 * again can give more. An open stream spends its life waiting for its task's next event; waiting
 * as a registered waker costs one field, where waiting on `next()` costs a promise, its resolving
 * functions and a reaction at each layer between the task and the socket (bench/HISTORY.md,
 * _Memory per open stream_). `next()` is offered on top (nextOf) for the consumers that iterate.
 */

/** What `pull()` gives when nothing is ready yet: the waker will be called. */
export const PENDING: unique symbol = Symbol('pending')

export type Pulled<T> = IteratorResult<T, undefined> | typeof PENDING

export interface Waker {
  /** Pulling again can give a result (or the failure, which `pull()` then throws). */
  wake(): void
}

/**
 * A source of results pulled one at a time, by one consumer. `pull()` throws what failed, once;
 * `return()` ends it at once, even while a waker waits (which is then woken, to pull the end).
 */
export interface Pullable<T> {
  pull(waker: Waker): Pulled<T>
  return(): Promise<IteratorResult<T, undefined>>
}

export const isPullable = <T>(source: object): source is Pullable<T> =>
  typeof (source as Partial<Pullable<T>>).pull === 'function'

/** An iterator's end, shared: a finished source allocates nothing more. */
export const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

/** One `next()` of a Pullable: pulls now, and again at each wake-up until there is a result. */
class NextStep<T> implements Waker {
  readonly #source: Pullable<T>
  readonly #resolve: (step: IteratorResult<T, undefined>) => void
  readonly #reject: (error: unknown) => void

  constructor(
    source: Pullable<T>,
    resolve: (step: IteratorResult<T, undefined>) => void,
    reject: (error: unknown) => void,
  ) {
    this.#source = source
    this.#resolve = resolve
    this.#reject = reject
  }

  wake(): void {
    let step: Pulled<T>
    try {
      step = this.#source.pull(this)
    } catch (error) {
      this.#reject(error)
      return
    }
    if (step !== PENDING) this.#resolve(step)
  }
}

/** `next()` for a Pullable: for consumers that iterate (`for await`), at a promise a step. */
export const nextOf = <T>(source: Pullable<T>): Promise<IteratorResult<T, undefined>> =>
  new Promise((resolve, reject) => new NextStep(source, resolve, reject).wake())

/**
 * An async iterator pulled: for sources that only iterate (generators). One `next()` in flight at
 * a time; its result, or its failure, is given by the pull after the wake-up.
 */
export class PulledIterator<T> implements Pullable<T> {
  readonly #iterator: AsyncIterator<T, unknown>
  #waiting = false
  #result: IteratorResult<T, undefined> | undefined
  /** Boxed: what was thrown may be anything. */
  #failure: { error: unknown } | undefined

  /** What the iterator returns at its end is not kept: a pulled end is DONE. */
  constructor(iterator: AsyncIterator<T, unknown>) {
    this.#iterator = iterator
  }

  pull(waker: Waker): Pulled<T> {
    const result = this.#result
    if (result) {
      this.#result = undefined
      return result
    }
    const failure = this.#failure
    if (failure) {
      this.#failure = undefined
      throw failure.error
    }
    if (this.#waiting) return PENDING
    this.#waiting = true
    this.#iterator.next().then(
      (step) => {
        this.#waiting = false
        this.#result = step.done ? DONE : step
        waker.wake()
      },
      (error: unknown) => {
        this.#waiting = false
        this.#failure = { error }
        waker.wake()
      },
    )
    return PENDING
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    this.#result = undefined
    await this.#iterator.return?.()
    return DONE
  }
}
