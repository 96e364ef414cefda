import { createMemoryStore } from '../../src/store/memory/memory-store.ts'
import { storeContract } from './contract.ts'

storeContract('memory', async () => createMemoryStore())
