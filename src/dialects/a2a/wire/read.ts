import type { JsonObject } from '../../../model/events.ts'

/**
 * Lenient reading, as ProtoJSON readers do: a field by its lowerCamelCase (JSON) name or its
 * proto (snake_case) name; an empty string is an absent field.
 */
export const field = (object: JsonObject, camel: string): unknown => {
  if (camel in object) return object[camel]
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
  return object[snake]
}

export const str = (object: JsonObject, camel: string): string | undefined => {
  const value = field(object, camel)
  return typeof value === 'string' && value !== '' ? value : undefined
}
