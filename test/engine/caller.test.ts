import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { frozenCaller } from '../../src/engine/caller.ts'
import type { CallerIdentity } from '../../src/model/caller.ts'

describe('frozenCaller', () => {
  const caller: CallerIdentity = {
    principal: 'alice',
    tenant: 'acme',
    scopes: ['tasks:read:tenant'],
    method: 'jwt',
    claims: { roles: ['staff'], profile: { team: 'ops' } },
  }

  it('is an equal, frozen copy whose scopes and claims a handler cannot change for the next run', () => {
    const copy = frozenCaller(caller)
    assert.deepEqual(copy, caller)
    assert.ok(Object.isFrozen(copy))
    assert.ok(Object.isFrozen(copy.scopes))
    assert.throws(() => (copy.scopes as string[]).push('admin'))
    // Nested claims are the handler's own: changing them leaves the recorded caller as it was.
    ;(copy.claims!.roles as string[]).push('admin')
    ;(copy.claims!.profile as { team: string }).team = 'sales'
    assert.deepEqual(caller.claims, { roles: ['staff'], profile: { team: 'ops' } })
    assert.deepEqual(frozenCaller(caller), {
      ...caller,
      claims: { roles: ['staff'], profile: { team: 'ops' } },
    })
  })

  it('has no claims when the caller has none', () => {
    const anonymous = frozenCaller({ principal: 'anonymous', tenant: 'default', scopes: [], method: 'none' })
    assert.equal('claims' in anonymous, false)
  })
})
