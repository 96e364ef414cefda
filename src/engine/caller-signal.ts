/**
 * What a wait or a stream needs of its caller's going away: whether it has, and to hear when it
 * does. An AbortSignal is one; a dialect may pass a lighter one (web/sse.ts `disconnectSignal`):
 * an AbortController and its EventTarget cost about 5 µs on Node 20, made for every blocking
 * send whose client almost never goes away.
 */
export interface CallerSignal {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void): void
  removeEventListener(type: 'abort', listener: () => void): void
}
