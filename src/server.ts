/** `switchboard/server`: host agents over the Clawpedia protocol and A2A 1.0. */
export { demoAgents } from './demo/index.ts'
export { Engine, type EngineOptions } from './engine/engine.ts'
export type { AdminOptions } from './http/admin-routes.ts'
export { createSwitchboard, DEFAULTS, type Switchboard, type SwitchboardOptions } from './http/server.ts'
export { type OutboundPolicy, verifySignature } from './push/index.ts'
export type { Store } from './store/contract.ts'
export { PostgresStore, type PostgresStoreOptions } from './store/postgres/postgres-store.ts'
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.ts'
