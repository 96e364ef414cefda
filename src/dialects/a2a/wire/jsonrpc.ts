import type { JsonObject } from '../../../model/events.ts'
import { isObject, type JsonText, jsonText } from '../../../model/json.ts'

/** The JSON-RPC 2.0 envelope the A2A JSON-RPC binding wraps every request and answer in. */
export type RpcId = string | number | null

export interface JsonRpcRequest {
  id: RpcId
  method: string
  params: JsonObject
}

export const encodeJsonRpcRequest = (id: RpcId, method: string, params: JsonObject): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

export const encodeJsonRpcResult = (id: RpcId, result: unknown): JsonText =>
  jsonText({ jsonrpc: '2.0', id, result })

export const encodeJsonRpcError = (id: RpcId, error: unknown): JsonText =>
  jsonText({ jsonrpc: '2.0', id, error })

/** A request, or why it is not one (with whatever id could be read, for the answer). */
export const readJsonRpcRequest = (body: unknown): JsonRpcRequest | { id: RpcId; invalid: string } => {
  if (!isObject(body)) {
    const invalid = Array.isArray(body)
      ? 'batch requests are not supported'
      : 'the body must be a JSON-RPC request object'
    return { id: null, invalid }
  }
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null
  if (body.jsonrpc !== '2.0') return { id, invalid: 'jsonrpc must be "2.0"' }
  if (!('id' in body))
    return { id, invalid: 'id is required: A2A methods all answer, so notifications are not accepted' }
  if (body.id !== null && typeof body.id !== 'string' && typeof body.id !== 'number')
    return { id, invalid: 'id must be a string, a number or null' }
  if (typeof body.method !== 'string' || body.method === '')
    return { id, invalid: 'method must be a non-empty string' }
  if (body.params !== undefined && !isObject(body.params)) return { id, invalid: 'params must be an object' }
  return { id, method: body.method, params: body.params ?? {} }
}

/** An answer's error or result; undefined when the body is not a JSON-RPC response. */
export const readJsonRpcResponse = (body: unknown): { error: unknown } | { result: unknown } | undefined => {
  if (!isObject(body)) return undefined
  if (body.error !== undefined) return { error: body.error }
  return 'result' in body ? { result: body.result } : undefined
}
