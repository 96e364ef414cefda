/**
 * The Vercel AI SDK with the community provider a2a-ai-provider (which speaks A2A 0.3 through
 * @a2a-js/sdk 0.3.14's A2AClient and our card's `url`) generates and streams text from one of our
 * agents: the model id is the agent's card URL.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { a2a } from 'a2a-ai-provider'
import { generateText, streamText } from 'ai'
import { demoAgents } from '../../src/demo/index.ts'
import { startA2a, type TestServer } from '../a2a/helpers.ts'
import { replierAgent } from '../helpers/reply-agents.ts'

let server: TestServer
before(async () => {
  server = await startA2a({ agents: [...demoAgents, replierAgent] })
})
after(() => server?.close())

const cardUrl = (slug: string) => `${server.base(slug)}/.well-known/agent-card.json`

/** The provider logs every request and event with console.log; a test run keeps its output readable. */
const quietly = async <T>(run: () => Promise<T>): Promise<T> => {
  const log = console.log
  console.log = () => {}
  try {
    return await run()
  } finally {
    console.log = log
  }
}

describe('a2a-ai-provider (ai 6) against our agents', () => {
  it('generateText: the direct reply is the text', async () => {
    const { text } = await quietly(() =>
      generateText({ model: a2a(cardUrl('replier')), prompt: 'hello there' }),
    )
    assert.equal(text, 'You said: hello there')
  })

  it('streamText: the text arrives over message/stream', async () => {
    const result = await quietly(async () => {
      const stream = streamText({ model: a2a(cardUrl('replier')), prompt: 'streamed words' })
      let text = ''
      for await (const delta of stream.textStream) text += delta
      return text
    })
    assert.match(result, /You said: streamed words/)
  })
})
