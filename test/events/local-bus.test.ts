import { LocalBus } from '../../src/events/local-bus.ts'
import { busContract } from './bus-contract.ts'

busContract('local', async () => new LocalBus())
