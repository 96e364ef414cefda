import type { JsonObject } from '../../../model/events.ts'
import type { Part } from '../../../model/parts.ts'
import type { A2aPart } from './shapes.ts'

/** Model part → wire part: the member that tells the kind, then the common fields that are set. */
export const toA2aPart = (part: Part): A2aPart => {
  const wire: A2aPart = {}
  switch (part.kind) {
    case 'text':
      wire.text = part.text
      break
    case 'data':
      wire.data = part.data
      break
    case 'url':
      wire.url = part.url
      break
    case 'raw':
      wire.raw = part.raw
      break
  }
  if (part.mediaType) wire.mediaType = part.mediaType
  if (part.filename) wire.filename = part.filename
  if (part.metadata) wire.metadata = part.metadata
  return wire
}

/** Wire part (schema-checked: exactly one member set) → model part. */
export const fromA2aPart = (part: A2aPart): Part => {
  const common: { mediaType?: string; filename?: string; metadata?: JsonObject } = {}
  if (part.mediaType) common.mediaType = part.mediaType
  if (part.filename) common.filename = part.filename
  if (part.metadata) common.metadata = part.metadata
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...common }
  if (part.raw !== undefined) return { kind: 'raw', raw: part.raw, ...common }
  if (part.url !== undefined) return { kind: 'url', url: part.url, ...common }
  return { kind: 'data', data: part.data, ...common }
}
