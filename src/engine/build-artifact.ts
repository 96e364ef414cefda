import type { ArtifactSpec, ArtifactStreamSpec } from '../agent/context.ts'
import type { Artifact } from '../model/artifacts.ts'
import { newId } from '../model/ids.ts'
import { nowIso } from '../model/time.ts'
import { LIMITS } from './limits.ts'

/** What an artifact takes in the store: a file's bytes, or its inline content. */
export const storedBytesOf = (artifact: Artifact): number => {
  switch (artifact.type) {
    case 'file':
      return artifact.size
    case 'json':
      return Buffer.byteLength(JSON.stringify(artifact.value))
    case 'url':
      return Buffer.byteLength(artifact.url)
    default:
      return Buffer.byteLength(artifact.text)
  }
}

const commonOf = (taskId: string, spec: { name?: string; description?: string }): Artifact => {
  const common = { id: newId(), taskId, createdAt: nowIso() } as Artifact
  if (spec.name !== undefined) common.name = spec.name
  if (spec.description !== undefined) common.description = spec.description
  return common
}

/**
 * The artifact a handler's `ctx.artifact(spec)` records, checked against the limits, and a file's
 * bytes to store beside it — unless the file is at most `inlineFileBytes`, whose bytes go inline
 * (`raw`) instead. Object.assign onto `common`, not `{ ...common, … }`: see stampEvent on V8's
 * slow path.
 */
export const buildArtifact = (
  taskId: string,
  spec: ArtifactSpec,
  options: { inlineFileBytes?: number } = {},
): { artifact: Artifact; bytes?: Uint8Array } => {
  const common = commonOf(taskId, spec)
  switch (spec.type) {
    case 'text':
    case 'log': {
      const text = String(spec.text)
      if (Buffer.byteLength(text) > LIMITS.inlineArtifactBytes) {
        throw new RangeError(
          `a ${spec.type} artifact is limited to ${LIMITS.inlineArtifactBytes} bytes; use a file artifact`,
        )
      }
      const artifact = Object.assign(common, { type: spec.type, text }) as Artifact
      if (spec.type === 'text' && spec.mediaType)
        (artifact as { mediaType?: string }).mediaType = spec.mediaType
      return { artifact }
    }
    case 'json': {
      const json = JSON.stringify(spec.value)
      if (json === undefined) throw new TypeError('a json artifact needs a JSON-serialisable value')
      if (Buffer.byteLength(json) > LIMITS.inlineArtifactBytes) {
        throw new RangeError(
          `a json artifact is limited to ${LIMITS.inlineArtifactBytes} bytes; use a file artifact`,
        )
      }
      return { artifact: Object.assign(common, { type: 'json', value: JSON.parse(json) }) as Artifact }
    }
    case 'url': {
      if (!URL.canParse(spec.url))
        throw new TypeError(`a url artifact needs an absolute URL, got "${spec.url}"`)
      const artifact = Object.assign(common, { type: 'url', url: spec.url }) as Artifact & {
        mediaType?: string
        filename?: string
      }
      if (spec.mediaType) artifact.mediaType = spec.mediaType
      if (spec.filename) artifact.filename = spec.filename
      return { artifact }
    }
    case 'file': {
      if (!spec.filename || !spec.mediaType)
        throw new TypeError('a file artifact needs a filename and a mediaType')
      const bytes = typeof spec.bytes === 'string' ? Buffer.from(spec.bytes, 'utf8') : spec.bytes
      if (bytes.byteLength > LIMITS.fileArtifactBytes) {
        throw new RangeError(`a file artifact is limited to ${LIMITS.fileArtifactBytes} bytes`)
      }
      const artifact = Object.assign(common, {
        type: 'file',
        filename: spec.filename,
        mediaType: spec.mediaType,
        size: bytes.byteLength,
      }) as Artifact & { type: 'file' }
      const inline = options.inlineFileBytes ?? LIMITS.inlineFileBytes
      if (inline > 0 && bytes.byteLength <= inline) {
        artifact.raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
        return { artifact }
      }
      return { artifact, bytes }
    }
    default:
      throw new TypeError(`unknown artifact type "${(spec as { type: unknown }).type}"`)
  }
}

/** The empty text artifact `ctx.artifactStream(spec)` opens. */
export const buildStreamArtifact = (taskId: string, spec: ArtifactStreamSpec = {}): Artifact => {
  if (spec.type !== undefined && spec.type !== 'text')
    throw new TypeError(`a streamed artifact is text, not "${String(spec.type)}"`)
  const artifact = Object.assign(commonOf(taskId, spec), { type: 'text', text: '' }) as Artifact & {
    type: 'text'
  }
  if (spec.mediaType) artifact.mediaType = spec.mediaType
  artifact.stream = { chunks: 0, done: false }
  return artifact
}
