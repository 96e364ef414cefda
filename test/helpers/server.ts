import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentDefinition } from '../../src/agent/define.ts'
import { demoAgents } from '../../src/demo/index.ts'
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from '../../src/server/server.ts'

export interface TestServer {
  url: string
  switchboard: Switchboard
  dataDir: string
  close(): Promise<void>
}

/** A real server on 127.0.0.1 and a free port, with its own temporary SQLite directory. */
export const startServer = async (
  options: Partial<SwitchboardOptions> & { agents?: AgentDefinition[] } = {},
): Promise<TestServer> => {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'))
  const switchboard = await createSwitchboard({
    agents: demoAgents,
    logger: false,
    port: 0,
    // Test receivers (webhooks, file servers) listen on loopback, which production refuses.
    outbound: { allow: ['127.0.0.0/8', '::1/128'] },
    ...options,
    engine: { shutdownGraceMs: 100, ...options.engine },
    push: { drainMs: 200, ...options.push },
    dataDir,
  })
  const url = await switchboard.listen()
  return {
    url,
    switchboard,
    dataDir,
    async close() {
      await switchboard.close()
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
export interface JsonResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

/** A JSON request; the body is parsed when the response is JSON, else returned as text. */
// biome-ignore lint/suspicious/noExplicitAny: as above
export const request = async <T = any>(
  url: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> => {
  const headers: Record<string, string> = { ...init.headers }
  let body: string | undefined
  if (init.raw !== undefined) body = init.raw
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body)
    headers['content-type'] ??= 'application/json'
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  })
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  return {
    status: response.status,
    headers: response.headers,
    body: (type.includes('json') && text ? JSON.parse(text) : text) as T,
  }
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export const eventually = async <T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
