import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { LIMITS } from '../../src/engine/limits.ts'
import { DEFAULTS } from '../../src/server/defaults.ts'

const doc = readFileSync(join(import.meta.dirname, '../../docs/limits.md'), 'utf8')

describe('docs/limits.md', () => {
  it('names every limit the engine and the server enforce', () => {
    const named = [...Object.keys(LIMITS), 'bodyLimit', 'pingMs', 'stallMs']
    assert.ok(Object.keys(DEFAULTS).includes('bodyLimit'))
    assert.deepEqual(
      named.filter((key) => !doc.includes(`\`${key}\``)),
      [],
    )
  })
})
