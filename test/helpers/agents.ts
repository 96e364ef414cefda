import { AgentError, defineAgent } from '../../src/agent/define.ts'

/** Agents that exist to exercise failure paths; ids are fixed so cards are stable. */
export const failingAgent = defineAgent({
  id: '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a61',
  slug: 'failing',
  name: 'Failing Agent',
  description: 'Always fails with a structured AgentError, for tests.',
  inputSchema: { type: 'object', properties: { reason: { type: 'string' } } },
  async handler(input, ctx) {
    await ctx.log('warn', 'about to fail')
    throw new AgentError('BROKEN_PIPE', `the pipe broke: ${String(input.reason ?? 'no reason')}`, {
      retryable: false,
    })
  },
})

export const crashingAgent = defineAgent({
  id: '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a62',
  slug: 'crashing',
  name: 'Crashing Agent',
  description: 'Throws an ordinary Error, for tests.',
  inputSchema: { type: 'object' },
  handler() {
    throw new Error('unexpected null')
  },
})

export const badOutputAgent = defineAgent({
  id: '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a63',
  slug: 'bad-output',
  name: 'Bad Output Agent',
  description: 'Returns output that breaks its own output schema, for tests.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  handler: () => ({ count: 'many' }),
})

/** Completes at once: the fastest possible task, for races. */
export const instantAgent = defineAgent({
  id: '0b7e1f3a-5c6d-4e8f-9a0b-1c2d3e4f5a64',
  slug: 'instant',
  name: 'Instant Agent',
  description: 'Completes immediately with its input echoed, for tests.',
  inputSchema: { type: 'object' },
  handler: (input) => ({ echo: input }),
})

export const testAgents = [failingAgent, crashingAgent, badOutputAgent, instantAgent]
