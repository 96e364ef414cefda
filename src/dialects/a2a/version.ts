import type { FastifyRequest } from 'fastify'
import { SwitchboardError } from '../../model/errors.ts'
import { A2A_VERSION } from './wire/shapes.ts'

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

/**
 * Refuses a request whose version this server does not speak. Only Major.Minor counts (a patch
 * number is ignored). An absent version means 0.3 by the spec, so it is refused too unless the
 * server is configured to assume 1.0 for clients that never send the header.
 */
export const assertVersion = (request: FastifyRequest, assumeWhenMissing: boolean): void => {
  // Nearly every request carries exactly this header: skip the general parse (it wins over the query).
  if (request.headers['a2a-version'] === A2A_VERSION) return
  const requested = requestedVersion(request)
  if (requested === undefined) {
    if (assumeWhenMissing) return
    throw new SwitchboardError(
      'VERSION_NOT_SUPPORTED',
      `no A2A-Version was sent, which means 0.3; this interface speaks A2A ${A2A_VERSION} only (send the header A2A-Version: ${A2A_VERSION})`,
      { requested: '0.3', supported: A2A_VERSION },
    )
  }
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(requested)
  if (!match || `${Number(match[1])}.${Number(match[2])}` !== A2A_VERSION) {
    throw new SwitchboardError(
      'VERSION_NOT_SUPPORTED',
      `A2A-Version ${JSON.stringify(requested.slice(0, 40))} is not supported; this interface speaks A2A ${A2A_VERSION}`,
      { requested: requested.slice(0, 40), supported: A2A_VERSION },
    )
  }
}
