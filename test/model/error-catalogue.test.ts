import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { ERROR_CODES } from '../../src/model/errors.ts'
import { HTTP_STATUS } from '../../src/web/errors.ts'

describe('the error catalogue', () => {
  const codes = Object.keys(ERROR_CODES).sort()

  it('every code is documented in docs/errors.md with its HTTP status, and no stale code is listed', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const documented = new Map(
      [...doc.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d*)\s*\|/gm)].map((m) => [m[1]!, m[2]!]),
    )
    assert.deepEqual([...documented.keys()].sort(), codes)
    for (const code of codes)
      assert.equal(documented.get(code), String(HTTP_STATUS[code as keyof typeof HTTP_STATUS]), code)
  })

  it('every code has an HTTP status, and only catalogue codes are mapped', () => {
    assert.deepEqual(Object.keys(HTTP_STATUS).sort(), codes)
    for (const status of Object.values(HTTP_STATUS)) assert.ok(status >= 400 && status < 600)
  })

  it('every code has a default message', () => {
    for (const [code, message] of Object.entries(ERROR_CODES)) assert.ok(message.length > 5, code)
  })
})
