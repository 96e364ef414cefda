import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

/** How much of an oversized body is read and discarded before the answer, in body limits. */
export const DRAIN_BODY_LIMITS = 4

/**
 * An oversized body is answered 413 only once the client has finished sending it. fastify answers
 * at once with `Connection: close`, and Node then closes the socket while a client that writes its
 * whole body before reading (undici, fetch) is still sending: it sees EPIPE instead of the 413. So
 * the rest of the body is read and discarded first, up to `DRAIN_BODY_LIMITS` × the body limit
 * (declared or counted); past that the answer goes out at once and the connection is closed.
 */
export const registerOversizedBodyDrain = (app: FastifyInstance, bodyLimit: number): void => {
  const bound = DRAIN_BODY_LIMITS * bodyLimit
  app.addHook('onError', async (request, _reply, error) => {
    if ((error as { code?: string }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return
    await drain(request.raw, bound)
  })
}

/** Reads and discards what is left of a request body: resolves when it ends, fails or passes `bound`. */
const drain = (body: IncomingMessage, bound: number): Promise<void> => {
  if (body.complete || body.destroyed || Number(body.headers['content-length']) > bound)
    return Promise.resolve()
  return new Promise((resolve) => {
    let read = 0
    const done = (): void => {
      body.off('data', onData).off('end', done).off('error', done).off('close', done)
      resolve()
    }
    const onData = (chunk: Buffer): void => {
      read += chunk.length
      if (read > bound) done()
    }
    body.on('data', onData).on('end', done).on('error', done).on('close', done)
    body.resume()
  })
}
