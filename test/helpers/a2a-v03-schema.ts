/**
 * Checks of what the A2A 0.3 dialect emits against the published 0.3.0 JSON Schema
 * (test/fixtures/spec/a2a-v0.3.0.json, draft-07). Unlike the 1.0.1 file it is usable as published:
 * local `$ref`s and `required` lists.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

const here = dirname(fileURLToPath(import.meta.url))
const bundle = JSON.parse(readFileSync(join(here, '../fixtures/spec/a2a-v0.3.0.json'), 'utf8')) as {
  definitions: Record<string, unknown>
}
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }))
ajv.addSchema({ $id: 'a2a-v03.json', definitions: bundle.definitions })

/** Validates `value` as the named 0.3 definition (`AgentCard`, `Task`, `Message` …); returns the errors. */
export const validateV03 = (typeName: string, value: unknown): string[] => {
  if (!(typeName in bundle.definitions))
    throw new Error(`no definition for ${typeName} in the A2A 0.3 schema`)
  const check = ajv.getSchema(`a2a-v03.json#/definitions/${typeName}`)
  if (!check) throw new Error(`could not compile ${typeName}`)
  if (check(value)) return []
  return (check.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
  )
}
