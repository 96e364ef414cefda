import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

export const CARD_MAX_AGE_SECONDS = 300

/** Serves a card with ETag, Cache-Control and Last-Modified, answering 304 to a matching If-None-Match. */
export const sendCard = (
  request: FastifyRequest,
  reply: FastifyReply,
  card: object,
  lastModified: Date,
): FastifyReply => {
  const body = JSON.stringify(card)
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
  reply
    .header('etag', etag)
    .header('cache-control', `public, max-age=${CARD_MAX_AGE_SECONDS}`)
    .header('last-modified', lastModified.toUTCString())
    .header('vary', 'A2A-Version')
  const ifNoneMatch = request.headers['if-none-match']
  if (
    ifNoneMatch &&
    (ifNoneMatch === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))
  ) {
    return reply.code(304).send()
  }
  return reply.type('application/json; charset=utf-8').send(body)
}
