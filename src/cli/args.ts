import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { ConnectOptions } from '../client/connect.ts'
import { INTERFACE_KINDS, type InterfaceKind } from '../client/types.ts'
import type { JsonObject } from '../model/events.ts'
import { isTaskState, TASK_STATES, type TaskState } from '../model/states.ts'
import { type CredentialFlags, credentialsFor } from './credentials.ts'
import { UsageError } from './exit-codes.ts'

/** A JSON object given inline or as `@file` (`@-` reads stdin). */
export const jsonObjectArg = (value: string, what: string): JsonObject => {
  let text = value
  if (value.startsWith('@')) {
    const path = value.slice(1)
    try {
      text = readFileSync(path === '-' ? 0 : path, 'utf8')
    } catch (error) {
      throw new UsageError(`${what}: cannot read ${path}: ${(error as Error).message}`)
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${what} must be a JSON object`)
  }
  return parsed as JsonObject
}

export const urlArg = (value: string, what = 'the URL'): string => {
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') return value
  } catch {
    // reported below
  }
  throw new UsageError(`${what} "${value}" is not an http(s) URL`)
}

export const positiveInt = (value: string, what: string): number => {
  const number = Number(value)
  if (!Number.isSafeInteger(number) || number <= 0)
    throw new UsageError(`${what} must be a positive integer, got "${value}"`)
  return number
}

export const stateArg = (value: string): TaskState => {
  const upper = value
    .toUpperCase()
    .replace(/-/g, '_')
    .replace(/^CANCELED$/, 'CANCELLED')
  if (!isTaskState(upper)) throw new UsageError(`--state must be one of ${TASK_STATES.join(', ')}`)
  return upper
}

/** `Name: value` lines, as curl takes them. */
export const headerArgs = (lines: string[] = []): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) throw new UsageError(`--header "${line}" is not "Name: value"`)
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

export const preferArg = (value: string | undefined): InterfaceKind[] | undefined => {
  if (value === undefined) return undefined
  const kinds = value.split(',').map((kind) => kind.trim().toLowerCase())
  for (const kind of kinds) {
    if (!(INTERFACE_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `--prefer takes a comma-separated list of ${INTERFACE_KINDS.join(', ')}; "${kind}" is none`,
      )
    }
  }
  return kinds as InterfaceKind[]
}

/** `--binding grpc`: that one kind of interface and no other (no failover to another). */
export const bindingArg = (value: string | undefined): InterfaceKind | undefined => {
  if (value === undefined) return undefined
  const kind = value.trim().toLowerCase()
  if (!(INTERFACE_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--binding takes one of ${INTERFACE_KINDS.join(', ')}; "${value}" is none`)
  return kind as InterfaceKind
}

/** `--extensions a,b`: the URIs, blanks dropped. */
const extensionsArg = (value: string): string[] =>
  value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '')

/** The options every command that talks to an agent shares. */
export interface AgentFlags extends CredentialFlags {
  json?: boolean
  timeout?: string
  prefer?: string
  binding?: string
  extensions?: string
  header?: string[]
  trustJwks?: string
  requireSignedCard?: boolean
}

export const withAgentOptions = (command: Command): Command =>
  command
    .option('--json', 'machine-readable output (JSON; one JSON object per line when following)')
    .option('--timeout <ms>', 'per-call timeout in milliseconds', '30000')
    .option('--prefer <kinds>', 'interface preference, comma-separated (default jsonrpc,rest,grpc,clawpedia)')
    .option('--binding <kind>', 'use only this interface: jsonrpc, rest, grpc or clawpedia')
    .option('--extensions <uris>', 'A2A extensions to activate, comma-separated (the A2A-Extensions header)')
    .option(
      '-H, --header <line...>',
      'extra request header "Name: value" (repeatable), sent to the agent\'s origin only',
    )
    .option('--token <token>', 'bearer token for the agent (env SWITCHBOARD_TOKEN), sent to its origin only')
    .option('--api-key <key>', 'API key for the agent, sent in --api-key-header to its origin only')
    .option('--api-key-header <name>', 'the header that carries --api-key (default X-API-Key)')
    .option('--trust-jwks <url>', "verify the agent card's signature with this key set (JWKS URL)")
    .option('--require-signed-card', 'refuse an agent card not signed by a trusted key (needs --trust-jwks)')

/** How to reach the agent at `url`: the flags, and its credentials (see credentialsFor). */
export const connectOptionsOf = (url: string, flags: AgentFlags): ConnectOptions => {
  const binding = bindingArg(flags.binding)
  if (binding && flags.prefer !== undefined)
    throw new UsageError('--binding and --prefer exclude each other: --binding is --prefer with one kind')
  const prefer = binding ? [binding] : preferArg(flags.prefer)
  if (flags.requireSignedCard && flags.trustJwks === undefined)
    throw new UsageError('--require-signed-card needs --trust-jwks <url>: the keys to verify the card with')
  const credentials = credentialsFor(url, flags)
  return {
    timeoutMs: positiveInt(flags.timeout ?? '30000', '--timeout'),
    headers: headerArgs(flags.header),
    ...(prefer && { prefer }),
    ...(flags.extensions !== undefined && { extensions: extensionsArg(flags.extensions) }),
    ...(flags.trustJwks !== undefined && {
      cardTrust: {
        jwksUrl: urlArg(flags.trustJwks, '--trust-jwks'),
        ...(flags.requireSignedCard && { requireSignature: true }),
      },
    }),
    ...(credentials && { credentials }),
  }
}
