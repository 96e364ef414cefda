import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

export const CARD_MAX_AGE_SECONDS = 300

/** Whether `etag` is among an If-None-Match list (weak comparison, RFC 9110 §13.1.2). */
const matchesEtag = (ifNoneMatch: string, etag: string): boolean =>
  ifNoneMatch === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)

/**
 * Whether the document is unchanged since an If-Modified-Since date (RFC 9110 §13.1.3). HTTP dates
 * have whole seconds, so the comparison is at that precision; a date that does not parse (or a
 * list of them) is ignored, as the RFC requires.
 */
const unmodifiedSince = (ifModifiedSince: string, lastModified: Date): boolean => {
  // An HTTP-date has one comma ("Sun, 06 Nov 1994 08:49:37 GMT"); more means a list.
  if (ifModifiedSince.split(',').length > 2) return false
  const since = Date.parse(ifModifiedSince)
  if (Number.isNaN(since)) return false
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since
}

/**
 * Serves a card with ETag, Cache-Control and Last-Modified, answering 304 when the client's copy
 * is current: a matching If-None-Match, or, only when there is no If-None-Match (it takes
 * precedence, RFC 9110 §13.2.2), an If-Modified-Since not older than `lastModified`. A card's
 * content is fixed for the life of the process (agent definitions, signing keys and the public URL
 * are all set at start-up), so the server's start time is a Last-Modified that never lies.
 */
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
  const { 'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince } = request.headers
  const current =
    ifNoneMatch !== undefined
      ? matchesEtag(ifNoneMatch, etag)
      : ifModifiedSince !== undefined &&
        (request.method === 'GET' || request.method === 'HEAD') &&
        unmodifiedSince(ifModifiedSince, lastModified)
  if (current) return reply.code(304).send()
  return reply.type('application/json; charset=utf-8').send(body)
}
