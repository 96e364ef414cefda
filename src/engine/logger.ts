/** The slice of pino the engine uses; tests pass a silent one. Never log credentials through it. */
export interface EngineLogger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} }
