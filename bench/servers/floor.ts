import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { JSONRPC_PATH } from '../protocol.ts'

/**
 * The floor under the subscriber scenario: bare node:http holding SSE responses, with just enough
 * A2A (SendMessage, SubscribeToTask, CancelTask; no store, no validation) for the same client to
 * drive it. What a stream costs here is what Node's HTTP/1.1 connection costs, whoever serves it.
 */
export const startFloor = async (): Promise<{ base: string; close(): Promise<void> }> => {
  const streams = new Map<string, Set<{ res: ServerResponse; rpcId: unknown }>>()
  const taskOf = (id: string, state: string) => ({ id, contextId: id, status: { state } })
  const frame = (rpcId: unknown, result: object) =>
    `data: ${JSON.stringify(rpcId === undefined ? result : { jsonrpc: '2.0', id: rpcId, result })}\n\n`

  /** JSON-RPC at its path; HTTP+JSON operations are told apart by the path's suffix alone. */
  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const rpc =
      req.url === JSONRPC_PATH
        ? (JSON.parse(body) as { id: unknown; method: string; params: { id?: string } })
        : undefined
    const method =
      rpc?.method ??
      (req.url?.endsWith(':subscribe')
        ? 'SubscribeToTask'
        : req.url?.endsWith(':cancel')
          ? 'CancelTask'
          : 'SendMessage')
    const id = rpc?.params.id ?? /\/tasks\/([^:]+):/.exec(req.url ?? '')?.[1] ?? ''
    const answer = (result: object) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(rpc ? { jsonrpc: '2.0', id: rpc.id, result } : result))
    }
    if (method === 'SendMessage') {
      const taskId = randomUUID()
      streams.set(taskId, new Set())
      answer({ task: taskOf(taskId, 'TASK_STATE_WORKING') })
      return
    }
    const open = streams.get(id)
    if (method === 'SubscribeToTask' && open) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame(rpc?.id, { task: taskOf(id, 'TASK_STATE_WORKING') }))
      const entry = { res, rpcId: rpc?.id }
      open.add(entry)
      res.once('close', () => open.delete(entry))
      return
    }
    if (method === 'CancelTask' && open) {
      const update = { statusUpdate: { taskId: id, contextId: id, status: { state: 'TASK_STATE_CANCELED' } } }
      for (const stream of open) stream.res.end(frame(stream.rpcId, update))
      streams.delete(id)
      answer(taskOf(id, 'TASK_STATE_CANCELED'))
      return
    }
    res.writeHead(404).end()
  }

  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => handle(req, res, body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
