/**
 * The load generator, one process per measurement: `node --import tsx bench/client/main.ts
 * '<ClientSpec JSON>'` (or the spec on stdin). Prints one result line; runs pinned to its own
 * core, apart from the server.
 */
import { RESULT_PREFIX } from '../protocol.ts'
import { push } from './push.ts'
import { clawpedia, get, type LoadSpec, send, sendAsync, stream, tokens } from './scenarios.ts'
import { type SubscriberSpec, subscribers } from './subscribers.ts'

export type ClientSpec =
  | ({ scenario: 'send' | 'send-async' | 'get' | 'stream' | 'tokens' | 'clawpedia' | 'push' } & LoadSpec)
  | ({ scenario: 'subscribers' } & SubscriberSpec)

const run = (spec: ClientSpec): Promise<unknown> => {
  switch (spec.scenario) {
    case 'send':
      return send(spec)
    case 'send-async':
      return sendAsync(spec)
    case 'get':
      return get(spec)
    case 'stream':
      return stream(spec)
    case 'tokens':
      return tokens(spec)
    case 'clawpedia':
      return clawpedia(spec)
    case 'push':
      return push(spec)
    case 'subscribers':
      return subscribers(spec)
  }
}

/** The spec comes as the argument, or as one line on stdin (the harness starts us before the server is up). */
const readSpec = async (): Promise<string> => {
  if (process.argv[2]) return process.argv[2]
  let text = ''
  process.stdin.setEncoding('utf8')
  for await (const chunk of process.stdin) {
    text += chunk as string
    if (text.includes('\n')) break
  }
  return text.split('\n')[0]!
}

const spec = await readSpec()
if (spec.trim() !== '') {
  const result = await run(JSON.parse(spec) as ClientSpec)
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`)
}
process.exit(0)
