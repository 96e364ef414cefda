import { type TUnsafe, Type } from '@sinclair/typebox'

/**
 * Shapes TypeBox spells differently from the protocol schemas. Both keep the schema keyword
 * the protocols use, so a violation reads the same as it always did.
 */

/** Any JSON object (`{ "type": "object" }`; TypeBox's Record would add patternProperties). */
export const jsonObject = (options: { minProperties?: number } = {}): TUnsafe<Record<string, unknown>> =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', ...options })

/** One of a fixed list of values (`{ "enum": [...] }`; TypeBox's Union would give anyOf and its errors). */
export const enumOf = <const T extends string | number>(values: readonly T[]): TUnsafe<T> =>
  Type.Unsafe<T>({ enum: [...values] })
