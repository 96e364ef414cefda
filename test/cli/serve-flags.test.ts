import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { firstSet, mergeOptions } from '../../src/cli/serve-flags/group.ts'

describe('serve flag groups', () => {
  it('take the flag, then the environment, then the file', () => {
    assert.equal(firstSet('flag', 'env', 'file'), 'flag')
    assert.equal(firstSet(undefined, 'env', 'file'), 'env')
    assert.equal(firstSet(undefined, '', 'file'), 'file')
    assert.equal(firstSet<string>(undefined, undefined, undefined), undefined)
  })

  it('merge the sections two groups fill, concatenating their lists', () => {
    const a = { name: 'a' } as never
    const b = { name: 'b' } as never
    const merged = mergeOptions([
      { identity: { authenticators: [a] }, port: 1 },
      { identity: { authenticators: [b], allowAnonymous: false } },
      { port: 2 },
    ])
    assert.deepEqual(merged, { identity: { authenticators: [a, b], allowAnonymous: false }, port: 2 })
  })
})
