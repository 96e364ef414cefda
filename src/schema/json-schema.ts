import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FieldViolation } from '../model/errors.ts'

// ajv-formats ships CommonJS typings; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/** One ajv instance for agent schemas (draft-07, as in the Clawpedia card): compile once, validate often. */
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, validateFormats: true }))
const cache = new Map<string, ValidateFunction>()

export type Validator = (value: unknown, root?: string) => FieldViolation[]

const describe = (error: ErrorObject): string => {
  switch (error.keyword) {
    case 'required':
      return `is required (missing "${String(error.params.missingProperty)}")`
    case 'additionalProperties':
      return `has an unexpected property "${String(error.params.additionalProperty)}"`
    default:
      return error.message ?? 'is invalid'
  }
}

/** Compiles a JSON Schema into a function returning every violation (empty when valid). */
export const compileSchema = (schema: object): Validator => {
  const key = JSON.stringify(schema)
  let validate = cache.get(key)
  if (!validate) {
    validate = ajv.compile(schema)
    cache.set(key, validate)
  }
  const compiled = validate
  return (value, root = '') => {
    if (compiled(value)) return []
    return (compiled.errors ?? []).map((error) => {
      const field =
        error.keyword === 'required'
          ? `${root}${error.instancePath}/${String(error.params.missingProperty)}`
          : `${root}${error.instancePath}` || root || '/'
      return { field, description: `${field} ${describe(error)}` }
    })
  }
}

/** Throws a readable error when `schema` itself is not a valid JSON Schema (agent start-up check). */
export const assertValidSchema = (schema: unknown, what: string): void => {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new TypeError(`${what} must be a JSON Schema object`)
  }
  try {
    ajv.compile(schema)
  } catch (error) {
    throw new TypeError(`${what} is not a valid JSON Schema: ${(error as Error).message}`)
  }
}
