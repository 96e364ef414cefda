import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rename, stat, unlink, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import { fetch } from 'undici'
import { isSwitchboardError } from '../model/errors.ts'
import { assertUrlAllowed, createGuardedDispatcher, findRefusal } from '../outbound/ssrf.ts'
import type { OriginCredentials } from './credentials.ts'
import { bareStatus, ClientError } from './errors.ts'
import { Exchange } from './http.ts'
import type { CallOptions, RemoteArtifact } from './types.ts'

export interface DownloadOptions extends CallOptions {
  /** A directory (the artifact's filename is used) or a file path. */
  to: string
  /** Refuse anything larger. Default 100 MiB. */
  maxBytes?: number
  /** Let the download reach loopback, private and link-local addresses. Default false. */
  allowPrivate?: boolean
  /** Destinations allowed despite the guard: CIDRs, addresses or exact hostnames. */
  allow?: string[]
}

export interface DownloadResult {
  artifactId: string
  path: string
  bytes: number
  mediaType?: string
}

/** What the connection contributes: its agent's own origins are trusted, and its credentials. */
export interface DownloadContext {
  trustedOrigins: readonly string[]
  /** Sent to their own origin only: never to a file host, never after a redirect to another origin. */
  credentials?: OriginCredentials
  timeoutMs: number
  /** The connection's defaults for the guard's allowances and the size cap. */
  defaults?: Omit<DownloadOptions, 'to' | 'signal' | 'timeoutMs'>
}

export const DEFAULT_MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024
const MAX_REDIRECTS = 5

const EXTENSIONS: Record<string, string> = { text: '.txt', log: '.log', json: '.json' }

/** A name safe to join to a directory: no path, no control characters, never empty or a dot name. */
const safeName = (artifact: RemoteArtifact): string => {
  const given = 'filename' in artifact && artifact.filename ? artifact.filename : artifact.name
  const cleaned = [...basename((given ?? '').replace(/\\/g, '/'))]
    .filter((char) => char.charCodeAt(0) > 0x1f && char.charCodeAt(0) !== 0x7f)
    .join('')
    .trim()
  if (cleaned && cleaned !== '.' && cleaned !== '..')
    return extname(cleaned) ? cleaned : cleaned + (EXTENSIONS[artifact.type] ?? '')
  return `artifact-${artifact.id.replace(/[^\w.-]/g, '_')}${EXTENSIONS[artifact.type] ?? ''}`
}

const targetPath = async (to: string, artifact: RemoteArtifact): Promise<string> => {
  const info = await stat(to).catch(() => undefined)
  return info?.isDirectory() ? join(to, safeName(artifact)) : to
}

/** Inline artifacts carry their bytes; file and url artifacts point at them. */
const inlineBytes = (artifact: RemoteArtifact): Buffer | undefined => {
  switch (artifact.type) {
    case 'text':
    case 'log':
      return Buffer.from(artifact.text, 'utf8')
    case 'json':
      return Buffer.from(`${JSON.stringify(artifact.value, null, 2)}\n`, 'utf8')
    case 'file':
      return artifact.raw === undefined ? undefined : Buffer.from(artifact.raw, 'base64')
    case 'url':
      return undefined
  }
}

/**
 * Saves an artifact to disk. Linked content is streamed to a temporary file beside the target and
 * renamed into place, never held in memory; the size cap applies to what arrives, whatever the
 * headers claim. Every hop (redirects are followed by hand) goes through the SSRF guard: an
 * address that is loopback, private, link-local or otherwise not public is refused unless
 * allowed, except the agent's own origins, which the caller chose to talk to. Only the origin the
 * credentials are bound to gets them.
 */
export const downloadArtifact = async (
  artifact: RemoteArtifact,
  given: DownloadOptions,
  context: DownloadContext,
): Promise<DownloadResult> => {
  const options: DownloadOptions = { ...context.defaults, ...given }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES
  const path = await targetPath(options.to, artifact)
  const inline = inlineBytes(artifact)
  if (inline) {
    if (inline.length > maxBytes) throw tooLarge(maxBytes)
    await writeAtomically(path, (tmp) => writeFile(tmp, inline, { flag: 'wx' }))
    const mediaType = 'mediaType' in artifact ? artifact.mediaType : undefined
    return { artifactId: artifact.id, path, bytes: inline.length, ...(mediaType && { mediaType }) }
  }
  const url = artifact.type === 'file' || artifact.type === 'url' ? artifact.url : undefined
  if (!url) throw new ClientError('PROTOCOL_ERROR', `artifact ${artifact.id} has neither content nor a URL`)
  return fetchToFile(url, path, { ...options, maxBytes }, context, artifact.id)
}

const tooLarge = (maxBytes: number, declared?: number): ClientError =>
  new ClientError(
    'PAYLOAD_TOO_LARGE',
    declared === undefined
      ? `the download exceeds the limit of ${maxBytes} bytes`
      : `the download is ${declared} bytes; the limit is ${maxBytes}`,
    { details: { maxBytes, ...(declared !== undefined && { declared }) } },
  )

const writeAtomically = async (path: string, write: (tmp: string) => Promise<void>): Promise<void> => {
  const tmp = `${path}.${randomUUID()}.part`
  try {
    await write(tmp)
    await rename(tmp, path)
  } catch (error) {
    await unlink(tmp).catch(() => {})
    throw error
  }
}

/** The guard's policy for one URL: the caller's allowances, plus the host of a trusted origin. */
const policyFor = (url: URL, options: DownloadOptions, context: DownloadContext): { allow: string[] } => {
  const allow = [...(options.allow ?? [])]
  if (options.allowPrivate) allow.push('0.0.0.0/0', '::/0')
  if (context.trustedOrigins.includes(url.origin)) allow.push(url.hostname.replace(/^\[|\]$/g, ''))
  return { allow }
}

const refused = (error: unknown): ClientError | undefined => {
  const refusal = isSwitchboardError(error) && error.code === 'URL_NOT_ALLOWED' ? error : findRefusal(error)
  return (
    refusal &&
    new ClientError('URL_NOT_ALLOWED', refusal.message, { details: refusal.details ?? {}, cause: error })
  )
}

const fetchToFile = async (
  start: string,
  path: string,
  options: DownloadOptions & { maxBytes: number },
  context: DownloadContext,
  artifactId: string,
): Promise<DownloadResult> => {
  let target = start
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let url: URL
    try {
      url = new URL(target)
    } catch {
      throw new ClientError('URL_NOT_ALLOWED', `"${target}" is not an absolute URL`)
    }
    const policy = policyFor(url, options, context)
    try {
      await assertUrlAllowed(url.href, policy)
    } catch (error) {
      throw refused(error) ?? error
    }
    const dispatcher = createGuardedDispatcher(policy)
    const exchange = new Exchange(options.signal, options.timeoutMs ?? context.timeoutMs)
    try {
      let response: Awaited<ReturnType<typeof fetch>>
      try {
        response = await fetch(url, {
          dispatcher,
          redirect: 'manual',
          signal: exchange.signal,
          headers: (await context.credentials?.headersFor(url.href)) ?? {},
        })
      } catch (error) {
        throw refused(error) ?? exchange.failure(error, `GET ${url.href}`)
      }
      exchange.stopTimer()
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel()
        target = new URL(location, url).href
        continue
      }
      if (response.status < 200 || response.status >= 300 || !response.body) {
        await response.body?.cancel()
        throw bareStatus(response.status, `GET ${url.href}: HTTP ${response.status}`)
      }
      const declared = Number(response.headers.get('content-length'))
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        await response.body.cancel()
        throw tooLarge(options.maxBytes, declared)
      }
      let bytes = 0
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length
          done(bytes > options.maxBytes ? tooLarge(options.maxBytes) : null, chunk)
        },
      })
      const body = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>)
      try {
        await writeAtomically(path, (tmp) =>
          pipeline(body, counted, createWriteStream(tmp, { flags: 'wx' }), { signal: exchange.signal }),
        )
      } catch (error) {
        if (error instanceof ClientError) throw error
        throw exchange.failure(error, `GET ${url.href}`)
      }
      const mediaType = response.headers.get('content-type') ?? undefined
      return { artifactId, path, bytes, ...(mediaType && { mediaType }) }
    } finally {
      exchange.end()
      await dispatcher.close().catch(() => {})
    }
  }
  throw new ClientError('PROTOCOL_ERROR', `more than ${MAX_REDIRECTS} redirects downloading ${start}`)
}
