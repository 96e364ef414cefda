import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { newId } from '../../../src/model/ids.ts'
import type { NewApiKey } from '../../../src/store/contract.ts'
import { type CurrentStore, nextCreatedAt } from './fixtures.ts'

const newKey = (overrides: Partial<NewApiKey> = {}): NewApiKey => ({
  id: newId(),
  hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
  principal: 'alice',
  tenant: 'acme',
  scopes: ['tasks:read:tenant'],
  createdAt: nextCreatedAt(),
  ...overrides,
})

/** What a listing shows of a key: everything but its hash. */
const listed = ({ hash: _hash, ...key }: NewApiKey) => key

/** createApiKey, findApiKey, listApiKeys, revokeApiKey. */
export const apiKeyCases = (store: CurrentStore): void => {
  describe('API keys', () => {
    it('finds a key by its hash and lists every key oldest first, never with its hash', async () => {
      const first = newKey({ label: 'ci' })
      const second = newKey({ principal: 'bob', tenant: 'globex', scopes: [] })
      await store().createApiKey(first)
      await store().createApiKey(second)
      assert.deepEqual(await store().findApiKey(first.hash), listed(first))
      assert.deepEqual(await store().findApiKey(second.hash), listed(second))
      assert.equal(await store().findApiKey(newKey().hash), undefined)
      const keys = await store().listApiKeys()
      assert.deepEqual(keys, [listed(first), listed(second)])
      for (const key of keys) assert.equal('hash' in key, false)
    })

    it('revokes a key at once and for good; it stays listed with the time of its first revocation', async () => {
      const key = newKey()
      const other = newKey()
      await store().createApiKey(key)
      await store().createApiKey(other)
      assert.equal(await store().revokeApiKey(key.id), true)
      assert.equal(await store().findApiKey(key.hash), undefined)
      assert.deepEqual(await store().findApiKey(other.hash), listed(other))
      const [revoked] = await store().listApiKeys()
      assert.equal(revoked?.id, key.id)
      assert.ok(revoked?.revokedAt && Date.parse(revoked.revokedAt) >= Date.parse(key.createdAt))
      assert.deepEqual({ ...revoked, revokedAt: undefined }, { ...listed(key), revokedAt: undefined })
      // Revoking again says it exists and keeps the first time.
      assert.equal(await store().revokeApiKey(key.id), true)
      assert.equal((await store().listApiKeys())[0]?.revokedAt, revoked.revokedAt)
      assert.equal(await store().findApiKey(key.hash), undefined)
    })

    it('answers false for revoking a key that does not exist', async () => {
      assert.equal(await store().revokeApiKey(newId()), false)
      assert.deepEqual(await store().listApiKeys(), [])
    })

    it('stores a hash once: a second key with the same hash is refused', async () => {
      const key = newKey()
      await store().createApiKey(key)
      await assert.rejects(store().createApiKey(newKey({ hash: key.hash })))
      assert.equal((await store().listApiKeys()).length, 1)
    })
  })
}
