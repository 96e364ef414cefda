import type { Waker } from '../../src/engine/pull.ts'

/** A waker that counts its wake-ups; `woken` resolves at the first. */
export const countingWaker = (): { waker: Waker; woken: Promise<void>; wakes: () => number } => {
  let wakes = 0
  let woke!: () => void
  const woken = new Promise<void>((resolve) => {
    woke = resolve
  })
  const waker: Waker = {
    wake() {
      wakes++
      woke()
    },
  }
  return { waker, woken, wakes: () => wakes }
}
