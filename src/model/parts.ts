/**
 * Message content, protocol-neutral. A2A has four part kinds (text, raw bytes, url, data);
 * Clawpedia has none (its input is a JSON object), so the A2A shape is the superset.
 */
export type Metadata = Record<string, unknown>

interface PartCommon {
  mediaType?: string
  filename?: string
  metadata?: Metadata
}

export type Part =
  | (PartCommon & { kind: 'text'; text: string })
  | (PartCommon & { kind: 'data'; data: unknown })
  | (PartCommon & { kind: 'url'; url: string })
  | (PartCommon & { kind: 'raw'; raw: string /* base64 */ })

export type Role = 'user' | 'agent'

export interface Message {
  messageId: string
  role: Role
  parts: Part[]
  contextId?: string
  taskId?: string
  referenceTaskIds?: string[]
  extensions?: string[]
  metadata?: Metadata
}

export const text = (value: string, extra: PartCommon = {}): Part => ({ kind: 'text', text: value, ...extra })

export const data = (value: unknown, extra: PartCommon = {}): Part => ({
  kind: 'data',
  data: value,
  mediaType: 'application/json',
  ...extra,
})

/** A file part, by reference (`url`) or inline (`bytes`, sent base64-encoded). */
export const file = (
  spec:
    | { url: string; mediaType?: string; filename?: string }
    | { bytes: Uint8Array; mediaType?: string; filename?: string },
): Part => {
  const { mediaType, filename } = spec
  const common: PartCommon = {}
  if (mediaType) common.mediaType = mediaType
  if (filename) common.filename = filename
  return 'url' in spec
    ? { kind: 'url', url: spec.url, ...common }
    : { kind: 'raw', raw: Buffer.from(spec.bytes).toString('base64'), ...common }
}

/** The text of a message: its text parts joined by newlines, or undefined when it has none. */
export const textOf = (parts: readonly Part[]): string | undefined => {
  const texts = parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
  return texts.length > 0 ? texts.join('\n') : undefined
}
