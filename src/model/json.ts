import type { JsonObject } from './events.ts'

declare const jsonTextBrand: unique symbol
/**
 * Text that JSON.stringify wrote: a single line, since it escapes every control character, CR and
 * LF among them. An SSE frame's `data:` is one, so writing a frame needs no scan for line breaks.
 */
export type JsonText = string & { readonly [jsonTextBrand]: true }

/** A value's JSON text; a value with none (undefined, a function) is refused. */
export const jsonText = (value: unknown): JsonText => {
  const text = JSON.stringify(value) as string | undefined
  if (text === undefined) throw new TypeError('the value has no JSON text')
  return text as JsonText
}

/** A JSON object: not null, not an array. What every wire message and body must be. */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
