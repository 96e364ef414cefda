import { Kind, type TSchema } from '@sinclair/typebox'
import type { FieldViolation } from '../../../model/errors.ts'
import type { JsonObject } from '../../../model/events.ts'
import { isObject } from '../../../model/json.ts'

/** The proto field name of a lowerCamelCase JSON name (`taskId` → `task_id`); a2a.proto sets no json_name. */
export const protoName = (jsonName: string): string =>
  jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * Lenient reading, as ProtoJSON readers do: a field by its lowerCamelCase (JSON) name or its
 * proto (snake_case) name; an empty string is an absent field.
 */
export const field = (object: JsonObject, camel: string): unknown => {
  if (camel in object) return object[camel]
  return object[protoName(camel)]
}

export const str = (object: JsonObject, camel: string): string | undefined => {
  const value = field(object, camel)
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A request message as its schema names it, and what kept it from being read that way. */
export interface ProtoJsonRead {
  message: unknown
  violations: FieldViolation[]
}

type Read = (value: unknown, at: string, violations: FieldViolation[]) => unknown

const asIs: Read = (value) => value

/**
 * ProtoJSON input rules for one request schema, derived from its property names so that a field
 * added to the schema is read under both names with no list to keep: every field (nested ones
 * too) by its JSON or its proto name; the same field under both is refused, as the protobuf
 * conformance suite recommends (FieldNameDuplicateDifferentCasing); `null` is the field's default,
 * i.e. absent, except for a `google.protobuf.Value` (Part.data), where it is a value; an int32 may
 * be a decimal string. Unknown fields are dropped: A2A 1.0.1 §5.7 says to ignore them (plain
 * ProtoJSON would refuse them). What comes out uses the JSON names only, so the schema check and
 * everything after it see one shape.
 */
export const protoJsonReader = (schema: TSchema): ((value: unknown) => ProtoJsonRead) => {
  const read = compile(schema)
  return (value) => {
    const violations: FieldViolation[] = []
    return { message: read(value, '', violations), violations }
  }
}

const compile = (schema: TSchema): Read => {
  if (schema.type === 'object' && isObject(schema.properties))
    return compileMessage(schema.properties as Record<string, TSchema>)
  if (schema.type === 'array' && isObject(schema.items)) {
    const item = compile(schema.items as TSchema)
    return (value, at, violations) =>
      Array.isArray(value) ? value.map((entry, i) => item(entry, `${at}/${i}`, violations)) : value
  }
  if (schema.type === 'integer')
    return (value) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value)
  return asIs
}

interface Field {
  name: string
  read: Read
  /** A google.protobuf.Value, for which `null` is a value rather than "not set". */
  nullIsValue: boolean
}

const compileMessage = (properties: Record<string, TSchema>): Read => {
  const byWireName = new Map<string, Field>()
  for (const [name, schema] of Object.entries(properties)) {
    const field: Field = { name, read: compile(schema), nullIsValue: schema[Kind] === 'Unknown' }
    byWireName.set(name, field)
    byWireName.set(protoName(name), field)
  }
  return (value, at, violations) => {
    if (!isObject(value)) return value
    const message: Record<string, unknown> = {}
    const given = new Map<string, string>()
    for (const [key, item] of Object.entries(value)) {
      const field = byWireName.get(key)
      if (field === undefined) continue
      const path = `${at}/${field.name}`
      const earlier = given.get(field.name)
      if (earlier !== undefined) {
        violations.push({
          field: path,
          description: `${path} is given twice, as "${earlier}" and as "${key}" (its JSON and proto names): send one`,
        })
        continue
      }
      given.set(field.name, key)
      if (item === null && !field.nullIsValue) continue
      message[field.name] = field.read(item, path, violations)
    }
    return message
  }
}
