import { randomUUID } from 'node:crypto'

/** Every id Switchboard mints (task, context, artifact, event message, push config) is a v4 UUID. */
export const newId = (): string => randomUUID()

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value)
