import { context, trace } from '@opentelemetry/api'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { CallerIdentity } from '../model/caller.ts'
import {
  ATTR,
  extractContext,
  recordCaller,
  recordFailure,
  recordPolicy,
  type Span,
  SpanKind,
  type TraceLogFields,
  type Tracer,
  traceFieldsOf,
} from './tracing.ts'
import { agentOfPath, inboundOperationOf, taskIdOfParams } from './tracing-operations.ts'

const SPAN = Symbol('switchboard.span')
const CONTEXT = Symbol('switchboard.traceContext')
const NAMED = Symbol('switchboard.spanNamed')
const REASON = Symbol('switchboard.errorMessage')
const AGENT = Symbol('switchboard.agent')

interface Traced {
  [SPAN]?: Span
  [CONTEXT]?: ReturnType<typeof context.active>
  [NAMED]?: boolean
  /** The answer's error message: the reason of a policy refusal. */
  [REASON]?: string
  /** The agent the path names, or the default agent (whose routes are at the root). */
  [AGENT]?: string
  caller?: CallerIdentity
}

/** JSON answers this large are not read back for their task id and state. */
const MAX_READ_BACK = 64 * 1024

/**
 * Facts of the answer: the task it names, its state, the protocol error code. The answer shapes
 * differ by dialect and binding (a bare task, a JSON-RPC result, `{ task }`), so it looks in each.
 */
const readBack = (span: Span, traced: Traced, payload: unknown): void => {
  if (typeof payload !== 'string' || payload.length > MAX_READ_BACK || payload[0] !== '{') return
  let body: Record<string, unknown>
  try {
    body = JSON.parse(payload) as Record<string, unknown>
  } catch {
    return
  }
  const error = body.error as { code?: unknown; message?: unknown } | undefined
  if (error && typeof error === 'object') {
    recordFailure(span, String(error.code))
    if (typeof error.message === 'string') traced[REASON] = error.message
  }
  const result = (body.result ?? body) as Record<string, unknown>
  const task = ((result.task as Record<string, unknown> | undefined) ?? result) as Record<string, unknown>
  // A2A: id, contextId, status.state; Clawpedia: task_id, context_id, status.
  const id = task.id ?? task.taskId ?? task.task_id
  if (typeof id === 'string') span.setAttribute(ATTR.taskId, id)
  const contextId = task.contextId ?? task.context_id
  if (typeof contextId === 'string') span.setAttribute(ATTR.contextId, contextId)
  const status = task.status as { state?: unknown } | string | undefined
  const state = typeof status === 'string' ? status : (status?.state ?? task.state)
  if (typeof state === 'string') span.setAttribute(ATTR.state, state)
}

/**
 * One SERVER span per inbound request, a child of the caller's `traceparent` when it sent one.
 * The span starts before authentication (so refusals are traced), is named once the route and
 * body are known, and is the active context of the handler: what the handler starts (the task,
 * outbound calls) is its child.
 */
export const registerRequestTracing = (app: FastifyInstance, tracer: Tracer, defaultAgent: string): void => {
  app.addHook('onRequest', (request, reply, done) => {
    const parent = extractContext(request.headers)
    const span = tracer.startSpan(
      `HTTP ${request.method}`,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR.httpMethod]: request.method },
      },
      parent,
    )
    const traced = request as unknown as Traced
    traced[SPAN] = span
    traced[CONTEXT] = trace.setSpan(parent, span)
    traced[AGENT] = agentOfPath(request.url, defaultAgent)
    // A stream the server wrote itself (SSE) bypasses fastify's response hooks, and a client that
    // stops reading one never aborts the request: the socket's close is the one end every
    // response has.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) traced[SPAN]?.setAttribute(ATTR.errorCode, 'CLIENT_ABORTED')
      end(request, reply)
    })
    done()
  })
  // After the body is parsed: the JSON-RPC method is known, and the handler runs inside `done`.
  app.addHook('preHandler', (request, _reply, done) => {
    const traced = request as unknown as Traced
    const span = traced[SPAN]
    if (!span) return done()
    name(span, request)
    context.with(traced[CONTEXT]!, done)
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    const traced = request as unknown as Traced
    const span = traced[SPAN]
    if (span && reply.getHeader('content-type')?.toString().includes('json')) readBack(span, traced, payload)
    done(null, payload)
  })
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply)
    done()
  })
}

/**
 * The trace ids of a request's span, for its access-log line: that line is written when the
 * socket closes, after the span ended and outside its context. Empty when the request is not traced.
 */
export const requestTraceFields = (request: FastifyRequest): TraceLogFields => {
  const active = (request as unknown as Traced)[CONTEXT]
  return active ? traceFieldsOf(active) : {}
}

const name = (span: Span, request: FastifyRequest): void => {
  ;(request as unknown as Traced)[NAMED] = true
  const route = request.routeOptions.url ?? request.url
  const body = request.body as { method?: unknown } | undefined
  const op = inboundOperationOf(request.method, route, request.url, body?.method)
  span.updateName(`${op.dialect}.${op.operation}`)
  span.setAttribute(ATTR.dialect, op.dialect)
  span.setAttribute(ATTR.operation, op.operation)
  span.setAttribute(ATTR.binding, op.binding)
  span.setAttribute(ATTR.httpRoute, route)
  // The directory, probes, /admin and /metrics belong to no agent.
  const agent = (request as unknown as Traced)[AGENT]
  if (op.dialect !== 'switchboard' && agent) span.setAttribute(ATTR.agent, agent)
  const version = op.version ?? request.headers['a2a-version']
  if (op.dialect === 'a2a') span.setAttribute(ATTR.protocolVersion, String(version ?? '0.3'))
  const taskId = taskIdOfParams(request.params) ?? rpcTaskId(body)
  if (taskId) span.setAttribute(ATTR.taskId, taskId)
}

/** The task a JSON-RPC call names: `params.taskId`, `params.id` (get, cancel, subscribe), or its message's. */
const rpcTaskId = (body: unknown): string | undefined => {
  const params = (body as { params?: Record<string, unknown> } | undefined)?.params
  if (!params || typeof params !== 'object') return undefined
  const message = params.message as { taskId?: unknown } | undefined
  // taskId first: a 1.0 push-config call has both, and its `id` names the config.
  const id = params.taskId ?? params.id ?? message?.taskId
  return typeof id === 'string' ? id : undefined
}

const end = (request: FastifyRequest, reply: FastifyReply): void => {
  const traced = request as unknown as Traced
  const span = traced[SPAN]
  if (!span) return
  traced[SPAN] = undefined
  if (!span.isRecording()) {
    span.end()
    return
  }
  // A request refused before its handler (authentication, access rule, rate limit) is named here.
  if (!traced[NAMED] && request.routeOptions.url) name(span, request)
  if (traced.caller) recordCaller(span, traced.caller)
  span.setAttribute(ATTR.httpStatus, reply.statusCode)
  const refusal = POLICY_REFUSALS[reply.statusCode]
  if (refusal) recordPolicy(span, refusal, traced[REASON] ?? `HTTP ${reply.statusCode}`)
  if (reply.statusCode >= 500) recordFailure(span, String(reply.statusCode))
  span.end()
}

/** The policy a refusal status stands for. */
const POLICY_REFUSALS: Readonly<Record<number, string>> = {
  401: 'authentication-refused',
  403: 'authorization-refused',
  429: 'rate-limited',
}
