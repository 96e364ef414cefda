import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { AgentError, defineAgent } from '../../src/agent/define.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from '../../src/server/server.ts'
import { type JsonResponse as HttpResult, request as http } from '../helpers/server.ts'

export const V = { 'A2A-Version': '1.0' } as const

/**
 * Accepts anything, and publishes one artifact of each type so every mapping shows up; `fail`
 * makes it fail with an agent error, `hold_ms` keeps it working for a while.
 */
export const echoAgent = defineAgent({
  id: '0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e',
  slug: 'echo',
  name: 'Echo',
  description: 'Echoes its input back, with one artifact of every kind.',
  capabilities: ['testing'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Says it back.', tags: ['echo'], examples: ['hello'] }],
  provider: { organization: 'Switchboard tests', url: 'https://example.org' },
  inputModes: ['application/json', 'text/plain', 'text/csv', 'image/png'],
  outputModes: ['application/json', 'text/plain'],
  inputSchema: { type: 'object' },
  async handler(input, ctx) {
    if (typeof input.hold_ms === 'number')
      await new Promise((resolve) => setTimeout(resolve, input.hold_ms as number))
    if (input.fail) throw new AgentError('ECHO_FAILED', 'asked to fail')
    await ctx.log('info', 'echoing')
    if (input.artifacts) {
      await ctx.artifact({ type: 'text', name: 'note', text: 'plain words' })
      await ctx.artifact({ type: 'json', name: 'data', value: { n: 1 } })
      await ctx.artifact({
        type: 'url',
        name: 'link',
        url: 'https://example.org/x.pdf',
        mediaType: 'application/pdf',
        filename: 'x.pdf',
      })
      await ctx.artifact({ type: 'log', name: 'trace', text: 'line one' })
      await ctx.artifact({
        type: 'file',
        name: 'file',
        filename: 'a.txt',
        mediaType: 'text/plain',
        bytes: 'file body',
      })
    }
    return { input, text: ctx.text ?? null, parts: ctx.message?.parts.length ?? 0 }
  },
})

/** Works until cancelled, publishing nothing: a stream on it only ever sees the Task. */
export const quietAgent = defineAgent({
  id: '3c0e5f7a-9b1d-4e2f-8a6c-5d4b3a2f1e0d',
  slug: 'quiet',
  name: 'Quiet',
  description: 'Holds until cancelled.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
    return undefined
  },
})

/** An agent that declares no push support (capabilities.pushNotifications false). */
export const noPushAgent = defineAgent({
  id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  slug: 'no-push',
  name: 'No Push',
  description: 'Works, but declares no push notifications.',
  pushNotifications: false,
  inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
})

export interface TestServer {
  url: string
  switchboard: Switchboard
  /** The base URL of an agent mount. */
  base(slug: string): string
  close(): Promise<void>
}

export const startA2a = async (options: Partial<SwitchboardOptions> = {}): Promise<TestServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-a2a-'))
  const switchboard = await createSwitchboard({
    agents: [...demoAgents, echoAgent, noPushAgent],
    dataDir,
    port: 0,
    logger: false,
    // Webhook receivers in these tests listen on loopback, which the default policy refuses.
    outbound: { allow: ['127.0.0.0/8'] },
    ...options,
    engine: { shutdownGraceMs: 100, ...options.engine },
    push: { drainMs: 100, ...options.push },
  })
  const url = await switchboard.listen()
  return {
    url,
    switchboard,
    base: (slug) => `${url}/agents/${slug}`,
    async close() {
      await switchboard.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/** A webhook receiver on 127.0.0.1 that answers 200 and records every request. */
export const startReceiver = async (): Promise<{
  url: string
  received: Received[]
  close(): Promise<void>
}> => {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** One HTTP exchange; JSON bodies are parsed (the shared test helper). */
export { type HttpResult, http }

let rpcId = 0

/** A JSON-RPC call to `{base}/a2a/jsonrpc` with A2A-Version 1.0 unless `headers` says otherwise. */
export const rpc = (
  base: string,
  method: string,
  params?: unknown,
  headers: Record<string, string> = { ...V },
) =>
  http(`${base}/a2a/jsonrpc`, {
    body: { jsonrpc: '2.0', id: ++rpcId, method, ...(params !== undefined && { params }) },
    headers,
  })

/**
 * A REST call under `{base}/a2a/rest` with A2A-Version 1.0 unless `headers` says otherwise; a
 * body goes as application/a2a+json, as 1.0.1 asks.
 */
export const rest = (
  base: string,
  path: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) =>
  http(`${base}/a2a/rest${path}`, {
    ...init,
    headers: {
      ...V,
      ...(init.body !== undefined && { 'content-type': 'application/a2a+json' }),
      ...init.headers,
    },
  })

export interface SseEvent {
  id: string | undefined
  event: string | undefined
  data: string
}

/** Reads an SSE response to its end (or until `stopWhen`); a non-SSE answer comes back as `body`. */
export const readSse = async (
  url: string,
  init: {
    method?: string
    headers?: Record<string, string>
    body?: unknown
    stopWhen?: (e: SseEvent) => boolean
    timeoutMs?: number
  } = {},
): Promise<{
  status: number
  headers: Headers
  events: SseEvent[]
  closedByServer: boolean
  raw: string
  body?: HttpResult['body']
}> => {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), init.timeoutMs ?? 8000)
  const headers: Record<string, string> = { ...init.headers }
  if (init.body !== undefined) headers['content-type'] ??= 'application/json'
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    signal: controller.signal,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  })
  const events: SseEvent[] = []
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    clearTimeout(timer)
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      events,
      closedByServer: true,
      raw: text,
      body: text ? JSON.parse(text) : undefined,
    }
  }
  let raw = ''
  let closedByServer = false
  const [forParser, forRaw] = response.body.tee()
  const rawDone = (async () => {
    const reader = forRaw.pipeThrough(new TextDecoderStream()).getReader()
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      raw += value
    }
  })()
  try {
    const reader = forParser
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) {
        closedByServer = true
        break
      }
      const event = { id: value.id, event: value.event, data: value.data }
      events.push(event)
      if (init.stopWhen?.(event)) {
        controller.abort()
        break
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error
  } finally {
    clearTimeout(timer)
  }
  await rawDone
  return { status: response.status, headers: response.headers, events, closedByServer, raw }
}

export type Binding = 'JSONRPC' | 'HTTP+JSON'
export const BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON']

/** An official @a2a-js/sdk client for the agent at `base`, from its card, on one binding. */
export const sdkClient = (base: string, binding: Binding) => {
  const factory = new ClientFactory({
    transports: binding === 'JSONRPC' ? [new JsonRpcTransportFactory()] : [new RestTransportFactory()],
  })
  return factory.createFromUrl(`${base}/.well-known/agent-card.json`, '')
}

/**
 * An SSE request read to its end, returned once its first event has arrived: the subscription is
 * live, so what happens to the task after this call reaches it. `stream` is the whole read.
 */
export const followFromFirstEvent = async (
  url: string,
  init: Omit<NonNullable<Parameters<typeof readSse>[1]>, 'stopWhen'>,
): Promise<{ stream: ReturnType<typeof readSse> }> => {
  let firstEvent: () => void = () => {}
  const started = new Promise<void>((resolve) => {
    firstEvent = resolve
  })
  const stream = readSse(url, {
    ...init,
    stopWhen: () => {
      firstEvent()
      return false
    },
  })
  await Promise.race([started, stream])
  return { stream }
}

/** Polls until `check` returns something, or fails. */
export const eventually = async <T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 5000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
