import type { FastifyRequest } from 'fastify'
import { SwitchboardError } from '../../model/errors.ts'
import type { ServerContext } from '../../web/context.ts'
import { A2A_VERSION } from './wire/shapes.ts'

/** The A2A versions an interface of ours can speak (`A2A-Version`, Major.Minor). */
export const A2A_V03 = '0.3'
export type A2aWireVersion = typeof A2A_VERSION | typeof A2A_V03

/**
 * The A2A-Version a request asks for: the header, else the `A2A-Version` query parameter (HTTP
 * bindings may carry it there). Undefined when absent or empty.
 */
export const requestedVersion = (request: FastifyRequest): string | undefined => {
  const header = request.headers['a2a-version']
  const query = (request.query as Record<string, unknown> | undefined)?.['A2A-Version']
  const value = [header, query].flat().find((v): v is string => typeof v === 'string' && v.trim() !== '')
  return value?.trim()
}

/** What the server speaks, for the error that refuses a version: in its message, and in its metadata. */
const speaks = (server: Pick<ServerContext, 'a2aV03'>): string =>
  server.a2aV03 ? `${A2A_VERSION} and ${A2A_V03}` : A2A_VERSION
const supported = (server: Pick<ServerContext, 'a2aV03'>): string =>
  server.a2aV03 ? `${A2A_VERSION},${A2A_V03}` : A2A_VERSION

/**
 * The version a request is served in, by the spec's rule (digest §5.1): only Major.Minor counts
 * (a patch number is ignored), and an absent version means 0.3. The server may not serve 0.3
 * (`a2a.v03: false`), or may take an absent version as 1.0 (`a2a.assumeVersionWhenMissing`, for
 * 1.0 clients that never send the header). Anything else is VersionNotSupportedError.
 */
export const negotiateVersion = (
  request: FastifyRequest,
  server: Pick<ServerContext, 'a2aV03' | 'a2aAssumeVersion'>,
): A2aWireVersion => {
  // Nearly every 1.0 request carries exactly this header: skip the general parse (it wins over the query).
  if (request.headers['a2a-version'] === A2A_VERSION) return A2A_VERSION
  const requested = requestedVersion(request)
  if (requested === undefined) {
    if (server.a2aAssumeVersion) return A2A_VERSION
    if (server.a2aV03) return A2A_V03
    throw new SwitchboardError(
      'VERSION_NOT_SUPPORTED',
      `no A2A-Version was sent, which means 0.3; this interface speaks A2A ${A2A_VERSION} only (send the header A2A-Version: ${A2A_VERSION})`,
      { requested: A2A_V03, supported: A2A_VERSION },
    )
  }
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(requested)
  const version = match ? `${Number(match[1])}.${Number(match[2])}` : undefined
  if (version === A2A_VERSION) return A2A_VERSION
  if (version === A2A_V03 && server.a2aV03) return A2A_V03
  throw new SwitchboardError(
    'VERSION_NOT_SUPPORTED',
    `A2A-Version ${JSON.stringify(requested.slice(0, 40))} is not supported; this interface speaks A2A ${speaks(server)}`,
    { requested: requested.slice(0, 40), supported: supported(server) },
  )
}

/** Whether the request is served as 1.0 (a version this server does not speak is not). */
export const isVersion10 = (
  request: FastifyRequest,
  server: Pick<ServerContext, 'a2aV03' | 'a2aAssumeVersion'>,
): boolean => {
  try {
    return negotiateVersion(request, server) === A2A_VERSION
  } catch {
    return false
  }
}

/**
 * Refuses a request to a 1.0-only operation in any other version. An absent version is 0.3 by the
 * spec; the error says so and how to ask for 1.0.
 */
export const assertVersion = (
  request: FastifyRequest,
  server: Pick<ServerContext, 'a2aV03' | 'a2aAssumeVersion'>,
): void => {
  if (negotiateVersion(request, server) === A2A_VERSION) return
  const sent = requestedVersion(request)
  throw new SwitchboardError(
    'VERSION_NOT_SUPPORTED',
    sent === undefined
      ? `no A2A-Version was sent, which means 0.3, and this is an A2A ${A2A_VERSION} operation (send the header A2A-Version: ${A2A_VERSION})`
      : `A2A-Version ${JSON.stringify(sent.slice(0, 40))} has no such operation; it is an A2A ${A2A_VERSION} one (send A2A-Version: ${A2A_VERSION})`,
    { requested: A2A_V03, supported: supported(server) },
  )
}
