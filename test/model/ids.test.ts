import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isUuid, newId } from '../../src/model/ids.ts'
import { UUID_V7 } from '../helpers/ids.ts'

describe('newId', () => {
  it('mints version 7 UUIDs (RFC 9562) whose first 48 bits are the time in milliseconds', () => {
    const before = Date.now()
    const id = newId()
    const after = Date.now()
    assert.match(id, UUID_V7)
    assert.ok(isUuid(id))
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    assert.ok(ms >= before && ms <= after + 1, `${ms} within [${before}, ${after}]`)
  })

  it('never repeats and always sorts later, 200,000 in a row (most within one millisecond)', () => {
    let previous = newId()
    const seen = new Set([previous])
    for (let i = 0; i < 200_000; i++) {
      const id = newId()
      assert.ok(id > previous, `${id} sorts after ${previous}`)
      assert.match(id, UUID_V7)
      seen.add(id)
      previous = id
    }
    assert.equal(seen.size, 200_001)
  })

  it('hands out ids that the next ones leave as they were (each is written in one reused buffer)', () => {
    const first = newId()
    const spelled = [...first].join('')
    const later = Array.from({ length: 1000 }, () => newId())
    assert.equal(first, spelled)
    assert.ok(later.every((id) => id !== first && UUID_V7.test(id)))
  })

  it('keeps the random part random: 10,000 ids share no 62-bit tail', () => {
    const tails = new Set(Array.from({ length: 10_000 }, () => newId().slice(19)))
    assert.equal(tails.size, 10_000)
  })
})
