import type { FastifyInstance } from 'fastify'
import { LIMITS } from '../engine/limits.ts'
import { SwitchboardError } from '../model/errors.ts'

const BRACE_OPEN = 0x7b
const BRACE_CLOSE = 0x7d
const BRACKET_OPEN = 0x5b
const BRACKET_CLOSE = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Whether a JSON text nests objects and arrays deeper than `limit`. One pass over the bytes,
 * counting brackets outside strings: every byte of a multi-byte UTF-8 sequence is ≥ 0x80, so no
 * character can pass for a bracket or a quote. On valid JSON this is its exact depth; on invalid
 * JSON it may say anything, and JSON.parse refuses the text anyway.
 */
export const nestsDeeperThan = (bytes: Uint8Array, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (inString) {
      if (byte === BACKSLASH) i++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (byte === BRACE_OPEN || byte === BRACKET_OPEN) {
      if (++depth > limit) return true
    } else if (byte === BRACE_CLOSE || byte === BRACKET_CLOSE) depth--
  }
  return false
}

// Fatal: a body that is not UTF-8 is refused, not silently decoded with replacement characters.
const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * JSON for both content types the dialects accept. Malformed JSON, invalid UTF-8 and nesting past
 * `LIMITS.jsonDepth` are our INVALID_JSON (each dialect renders it), not a framework error; the
 * depth is checked before parsing so that nothing downstream (schema checks, the store's
 * JSON.stringify) can overflow the stack on what was accepted.
 */
export const registerJsonParsers = (app: FastifyInstance): void => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(
    ['application/json', 'application/a2a+json'],
    { parseAs: 'buffer' },
    (_request, body, done) => {
      try {
        done(null, parseJsonBody(body as Buffer))
      } catch (error) {
        done(error as SwitchboardError, undefined)
      }
    },
  )
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
/** With the `u` flag a well-formed pair is one code point, so only a lone half is a `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * Whether any string or member name in a parsed body holds half a surrogate pair: such a string
 * cannot be written as UTF-8, so stores and fingerprints (JCS, RFC 8785) cannot keep it as sent.
 * Nesting is bounded by the depth check that ran first.
 */
const holdsLoneSurrogate = (value: unknown): boolean => {
  if (typeof value === 'string') return LONE_SURROGATE.test(value)
  if (typeof value !== 'object' || value === null) return false
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate)
  for (const [name, member] of Object.entries(value)) {
    if (LONE_SURROGATE.test(name) || holdsLoneSurrogate(member)) return true
  }
  return false
}

const parseJsonBody = (bytes: Buffer): unknown => {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new SwitchboardError('INVALID_JSON', 'the body is not valid UTF-8')
  }
  if (text.trim() === '') return undefined
  if (nestsDeeperThan(bytes, LIMITS.jsonDepth)) {
    throw new SwitchboardError(
      'INVALID_JSON',
      `the body nests objects and arrays more than ${LIMITS.jsonDepth} levels deep (the limit)`,
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new SwitchboardError('INVALID_JSON', `the body is not valid JSON: ${(error as Error).message}`)
  }
  // Strict UTF-8 keeps surrogates out of the bytes; only an escape (`\ud800`) can write one.
  if (SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value)) {
    throw new SwitchboardError(
      'INVALID_JSON',
      'the body is not I-JSON (RFC 7493): a string holds an unpaired surrogate, an escape in \\ud800–\\udfff that is no Unicode character',
    )
  }
  return value
}
