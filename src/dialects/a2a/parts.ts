import { SwitchboardError } from '../../model/errors.ts'
import type { JsonObject } from '../../model/events.ts'
import { isObject } from '../../model/json.ts'
import type { Message } from '../../model/parts.ts'
import { fromA2aPart } from './wire/parts.ts'
import type { InboundMessage } from './wire/requests.ts'
import type { A2aPart } from './wire/shapes.ts'

export const DEFAULT_INPUT_MODES = ['application/json', 'text/plain']
export const DEFAULT_OUTPUT_MODES = ['application/json']

/** What a user message gives the engine: the message for history, and the input it carries. */
export interface MessageInput {
  message: Message
  /** The message's data part: the input object. */
  input?: JsonObject
  /** Its text parts (and text/* raw parts), joined by newlines. */
  text?: string
}

const baseType = (mediaType: string): string => mediaType.split(';')[0]!.trim().toLowerCase()

/** A part with no media type is what its kind implies; bytes and links without one are opaque. */
const impliedMediaType = (part: A2aPart): string => {
  if (part.mediaType) return baseType(part.mediaType)
  if (part.text !== undefined) return 'text/plain'
  if (part.data !== undefined) return 'application/json'
  return 'application/octet-stream'
}

/** `text/*` and `*\/*` in the agent's modes accept whole families. */
export const acceptsMediaType = (modes: readonly string[], mediaType: string): boolean => {
  const [type] = mediaType.split('/')
  return modes.some((mode) => {
    const accepted = baseType(mode)
    return accepted === mediaType || accepted === '*/*' || accepted === `${type}/*`
  })
}

const invalidPart = (index: number, suffix: string, description: string): SwitchboardError => {
  const field = `/message/parts/${index}${suffix}`
  return new SwitchboardError('INVALID_REQUEST', `${field} ${description}`, {
    violations: [{ field, description: `${field} ${description}` }],
  })
}

/**
 * Reads a user message (already schema-checked): every part's media type must be one the agent
 * accepts; a `data` part (at most one, a JSON object) is the input; text parts, and raw parts
 * whose media type is text/*, become the text the agent's `fromText` reads when there is no data.
 */
export const fromA2aMessage = (wire: InboundMessage, acceptedModes: readonly string[]): MessageInput => {
  const texts: string[] = []
  let input: JsonObject | undefined
  for (const [index, part] of wire.parts.entries()) {
    const mediaType = impliedMediaType(part)
    if (!acceptsMediaType(acceptedModes, mediaType)) {
      throw new SwitchboardError(
        'CONTENT_TYPE_NOT_SUPPORTED',
        `part ${index} has media type ${mediaType}, which this agent does not accept (it accepts ${acceptedModes.join(', ')})`,
        { mediaType, part: index },
      )
    }
    if (part.data !== undefined) {
      if (!isObject(part.data)) throw invalidPart(index, '/data', 'must be a JSON object (the agent input)')
      if (input !== undefined) throw invalidPart(index, '', 'is a second data part; send one input object')
      input = part.data
    } else if (part.text !== undefined) {
      texts.push(part.text)
    } else if (part.raw !== undefined && mediaType.startsWith('text/')) {
      texts.push(Buffer.from(part.raw, 'base64').toString('utf8'))
    }
  }
  const message: Message = { messageId: wire.messageId, role: 'user', parts: wire.parts.map(fromA2aPart) }
  if (wire.referenceTaskIds?.length) message.referenceTaskIds = wire.referenceTaskIds
  if (wire.extensions?.length) message.extensions = wire.extensions
  if (wire.metadata) message.metadata = wire.metadata
  const result: MessageInput = { message }
  if (input !== undefined) result.input = input
  if (texts.length > 0) result.text = texts.join('\n')
  return result
}
