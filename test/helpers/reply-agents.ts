import { AgentError, defineAgent, TaskRejection } from '../../src/agent/define.ts'
import { reply } from '../../src/agent/reply.ts'

/**
 * An agent that answers with messages, declaring `directReplies`. Its input says what to do:
 *   { say } or a text        a direct reply: "You said: …" and the data { length }
 *   { work: true }           a log line first, then the output { done: true } (no reply: a task)
 *   { final: true }          the output { ok: true } with the final message "Done."
 *   { nothing: true }        returns nothing: COMPLETED with no output
 *   { fail: true }           FAILED (NOPE) with the final message "Sorry, I cannot." and data
 *   { reject: true }         REJECTED with the final message "Try the other agent."
 *   { ask: true }            asks "Your name?" (any object answers), then ends with "Thanks, {name}"
 *                            and the output { answer }: what `ctx.ask` resolved with
 *   { big: true }            a reply over the size limit: FAILED with AGENT_ERROR
 */
export const replierAgent = defineAgent({
  id: '5e0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b',
  slug: 'replier',
  name: 'Replier',
  description: 'Answers with messages: direct replies, final messages, questions.',
  inputSchema: { type: 'object' },
  directReplies: true,
  async handler(input, ctx) {
    if (input.work) {
      await ctx.log('info', 'working')
      return { done: true }
    }
    if (input.final) return reply({ text: 'Done.', output: { ok: true } })
    if (input.nothing) return undefined
    if (input.fail)
      throw new AgentError('NOPE', 'no can do', undefined, {
        reply: { text: 'Sorry, I cannot.', data: { retry: false } },
      })
    if (input.reject) throw new TaskRejection('not mine', 'NOT_MINE', { reply: 'Try the other agent.' })
    if (input.big) return reply('x'.repeat(1024 * 1024 + 1))
    if (input.ask) {
      const answer = await ctx.ask('Your name?', { schema: { type: 'object' } })
      const name = answer.text ?? String(answer.input.name)
      return reply({
        text: `Thanks, ${name}`,
        output: {
          answer: {
            messageId: answer.messageId ?? null,
            text: answer.text ?? null,
            data: answer.data ?? null,
            kinds: answer.parts.map((part) => part.kind),
            input: answer.input,
          },
        },
      })
    }
    const said = ctx.text ?? String(input.say ?? '')
    return reply({ text: `You said: ${said}`, data: { length: said.length } })
  },
})

/** Replies without declaring it: only a blocking SendMessage can answer with the Message. */
export const lateReplierAgent = defineAgent({
  id: '5e0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2c',
  slug: 'late-replier',
  name: 'Late Replier',
  description: 'Replies "pong", without declaring direct replies.',
  inputSchema: { type: 'object' },
  handler: () => reply('pong'),
})

/** Its output schema wants a text: a reply without an output is checked as `{ text, data }`. */
export const strictReplierAgent = defineAgent({
  id: '5e0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2d',
  slug: 'strict-replier',
  name: 'Strict Replier',
  description: 'Replies with text, or with data alone when asked (which its schema refuses).',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  directReplies: true,
  handler: (input) => (input.dataOnly ? reply({ data: { n: 1 } }) : reply('fine')),
})

export const replyAgents = [replierAgent, lateReplierAgent, strictReplierAgent]
