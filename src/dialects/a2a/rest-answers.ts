import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CallerSignal } from '../../engine/caller-signal.ts'
import { type JsonText, jsonText } from '../../model/json.ts'
import type { ServerContext } from '../../web/context.ts'
import { disconnectSignal } from '../../web/sse.ts'
import { type A2aFailure, a2aFailure } from './errors.ts'
import { type StreamEncoding, serveStream } from './stream.ts'
import type { StreamItem, StreamResponse } from './wire/shapes.ts'

/** `/tasks/{id}` and `/tasks/{id}:verb` share one path segment: split it here, not in the router. */
export const splitVerb = (segment: string): { id: string; verb?: string } => {
  const match = /^(.*):([A-Za-z]+)$/.exec(segment)
  return match ? { id: match[1]!, verb: match[2]! } : { id: segment }
}

/** What differs between the A2A versions' HTTP+JSON answers. */
export interface RestAnswerVersion {
  /** 'A2A' or 'A2A 0.3': names the binding in logs and in the no-route error. */
  name: string
  contentType: (reply: FastifyReply) => string
  errorStatus: (failure: A2aFailure) => number
  errorBody: (failure: A2aFailure) => unknown
  /** A stream item's event data. */
  encode: (response: StreamResponse) => JsonText
}

/**
 * The answers of an HTTP+JSON binding, for its version: a JSON body, an error, a stream of items
 * (each event the encoded StreamResponse, a failure an `error` event carrying the error body).
 */
export const restAnswers = (server: ServerContext, version: RestAnswerVersion) => {
  // One for every stream of this version: it depends on nothing of the request.
  const encoding: StreamEncoding<StreamItem> = {
    encode: (item) => version.encode(item.response),
    encodeError: (failure) => ({ event: 'error', data: jsonText(version.errorBody(failure)) }),
  }
  return {
    send: (reply: FastifyReply, body: unknown, status = 200) =>
      reply.code(status).type(version.contentType(reply)).send(JSON.stringify(body)),
    sendFailure: (reply: FastifyReply, failure: A2aFailure) => {
      if (failure.internal)
        server.logger.error({ err: failure.internal }, `${version.name} REST request failed`)
      return reply
        .code(version.errorStatus(failure))
        .type(version.contentType(reply))
        .send(JSON.stringify(version.errorBody(failure)))
    },
    stream: (reply: FastifyReply, items: AsyncIterableIterator<StreamItem>) =>
      serveStream({ reply, server, items, encoding }),
    signalOf: (reply: FastifyReply): CallerSignal => disconnectSignal(reply.raw),
    noRoute: (request: FastifyRequest) =>
      a2aFailure(
        'MethodNotFoundError',
        `no ${version.name} operation at ${request.method} ${request.url.split('?')[0]}`,
      ),
  }
}
