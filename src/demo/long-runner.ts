import { defineAgent } from '../agent/define.ts'
import type { JsonObject } from '../model/events.ts'

interface LongRunInput extends JsonObject {
  steps: number
  step_ms?: number
}

/**
 * Works through N steps, reporting progress, and stops the moment it is cancelled. Declared
 * retryable: after a crash it starts over rather than failing with AGENT_INTERRUPTED.
 */
export const longRunner = defineAgent<LongRunInput, JsonObject>({
  id: 'c2d4e6f8-0a1b-4c3d-8e5f-7a9b1c3d5e70',
  slug: 'long-runner',
  name: 'Long Runner',
  description: 'Runs a long job in steps, reports progress as it goes, and honours cancellation at once.',
  capabilities: ['long-running', 'progress', 'cancellable'],
  retryable: true,
  inputSchema: {
    type: 'object',
    properties: {
      steps: { type: 'integer', minimum: 1, maximum: 10_000, default: 10 },
      step_ms: { type: 'integer', minimum: 0, maximum: 60_000, default: 1000 },
    },
    required: ['steps'],
  },
  outputSchema: {
    type: 'object',
    properties: { steps: { type: 'integer' }, elapsed_ms: { type: 'integer' } },
    required: ['steps', 'elapsed_ms'],
  },
  fromText: (text) => ({ steps: Number.parseInt(text, 10) || 10 }),
  async handler(input, ctx) {
    const steps = Number(input.steps)
    const stepMs = typeof input.step_ms === 'number' ? input.step_ms : 1000
    const started = Date.now()
    for (let step = 1; step <= steps; step++) {
      await sleep(stepMs, ctx.signal)
      await ctx.log('info', `step ${step}/${steps} (${Math.round((step / steps) * 100)}%)`)
    }
    return { steps, elapsed_ms: Date.now() - started }
  },
})

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
