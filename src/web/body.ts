import { SwitchboardError } from '../model/errors.ts'
import { isUuid } from '../model/ids.ts'
import { compileSchema } from '../schema/json-schema.ts'

/** Compiles a body schema once; the returned check throws INVALID_REQUEST listing every violation. */
export const bodyCheck = <T>(schema: object): ((body: unknown) => T) => {
  const validate = compileSchema(schema)
  return (body) => {
    if (body === undefined) throw new SwitchboardError('INVALID_REQUEST', 'a JSON body is required')
    const violations = validate(body, '')
    if (violations.length > 0) {
      throw new SwitchboardError(
        'INVALID_REQUEST',
        `the body is invalid: ${violations.map((v) => v.description).join('; ')}`,
        { violations },
      )
    }
    return body as T
  }
}

/** Our ids are UUIDs: anything else in a path is malformed, not merely unknown. */
export const uuidParam = (value: string, name: string): string => {
  if (!isUuid(value))
    throw new SwitchboardError('INVALID_ID', `${name} must be a UUID, got "${String(value).slice(0, 80)}"`)
  return value.toLowerCase()
}

/** `Content-Disposition` for a download, safe for any filename (RFC 6266 with an RFC 5987 fallback). */
export const attachment = (filename: string): string => {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
