import type { AgentDefinition } from '../../agent/define.ts'
import { SwitchboardError } from '../../model/errors.ts'
import { EXTENSIONS_HEADER, formatExtensions, parseExtensions } from './wire/service-parameters.ts'

/** What one request's A2A-Extensions header comes to, against the extensions the agent declares. */
export interface ExtensionNegotiation {
  /**
   * Requested and declared, in the card's order: active for this request and echoed in its
   * response. Only declared URIs, so nothing a client makes up is ever stored with a task.
   */
  readonly activated: readonly string[]
  /** Declared `required` but not requested. */
  readonly missing: readonly string[]
}

export const NO_EXTENSIONS: ExtensionNegotiation = Object.freeze({ activated: [], missing: [] })

/**
 * Extensions are inactive by default; a request activates the declared ones it names. One it
 * names that the agent does not declare (another version, say) is ignored, never mapped to a
 * neighbour: the spec forbids falling back to another version of an extension.
 */
export const negotiateExtensions = (
  agent: AgentDefinition,
  header: string | readonly string[] | undefined,
): ExtensionNegotiation => {
  const declared = agent.extensions
  if (!declared?.length) return NO_EXTENSIONS
  const requested = new Set(parseExtensions(header))
  return {
    activated: declared.filter((e) => requested.has(e.uri)).map((e) => e.uri),
    missing: declared.filter((e) => e.required && !requested.has(e.uri)).map((e) => e.uri),
  }
}

/**
 * A message (SendMessage, SendStreamingMessage) to an agent with a required extension the request
 * did not activate is refused before anything is stored (spec §3.3.4). Other operations read or
 * act on a task a message created; they are not refused.
 */
export const assertRequiredExtensions = (negotiation: ExtensionNegotiation): void => {
  const { missing } = negotiation
  if (missing.length === 0) return
  throw new SwitchboardError(
    'EXTENSION_SUPPORT_REQUIRED',
    `this agent requires the extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: send the header ${EXTENSIONS_HEADER}: ${formatExtensions(missing)}`,
    { requiredExtensions: formatExtensions(missing) },
  )
}
