import { randomBytes } from 'node:crypto'
import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { SealedStore } from '../../src/store/sealed-store.ts'
import { keyringOf } from '../../src/store/sealing.ts'
import { storeContract } from './contract.ts'

storeContract('memory', async () => createMemoryStore())

// The decorator that encrypts push credentials must keep every promise of the contract.
storeContract(
  'sealed(memory)',
  async () => new SealedStore(createMemoryStore(), keyringOf([randomBytes(32).toString('base64')])),
)
