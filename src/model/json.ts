import type { JsonObject } from './events.ts'

/** A JSON object: not null, not an array. What every wire message and body must be. */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
