import type { GrpcOptions } from '../../server/grpc.ts'
import { firstSet, nameOf, onOff, type ServeFlagGroup, sectionOf } from './group.ts'

/** A port number, 0 (any free port) or `off`; the setting that gave a bad one is named. */
const portOf = (name: string, value: unknown): number | 'off' | undefined => {
  if (value === undefined || value === '') return undefined
  if (typeof value === 'string' && value.trim().toLowerCase() === 'off') return 'off'
  if (value === false) return 'off'
  const port = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`${name} must be a port number (0: any free port) or off, got "${String(value)}"`)
  return port
}

/**
 * `--grpc-port`, `--grpc-reflection`: the A2A 1.0 gRPC binding (docs/a2a.md "gRPC"). One gRPC
 * server for every agent, on the HTTP port + 1 unless told otherwise; reflection off by default.
 */
export const grpcFlags: ServeFlagGroup = {
  register(command) {
    command
      .option(
        '--grpc-port <n|off>',
        'port of the A2A gRPC binding, 0 for any free one, off for none (env SWITCHBOARD_GRPC_PORT; default: the HTTP port + 1)',
      )
      .option(
        '--grpc-reflection',
        'serve gRPC server reflection for lf.a2a.v1.A2AService (env SWITCHBOARD_GRPC_REFLECTION=1; default off)',
      )
  },

  resolve({ flags, env, file }) {
    const section = sectionOf(file, 'grpc')
    const portName = nameOf(
      flags.grpcPort,
      '--grpc-port',
      env.SWITCHBOARD_GRPC_PORT,
      'SWITCHBOARD_GRPC_PORT',
      'grpc.port',
    )
    const port = portOf(portName, firstSet(flags.grpcPort, env.SWITCHBOARD_GRPC_PORT, section.port))
    const reflectionSetting = firstSet(
      flags.grpcReflection,
      env.SWITCHBOARD_GRPC_REFLECTION,
      section.reflection,
    )
    const reflectionName = nameOf(
      flags.grpcReflection,
      '--grpc-reflection',
      env.SWITCHBOARD_GRPC_REFLECTION,
      'SWITCHBOARD_GRPC_REFLECTION',
      'grpc.reflection',
    )
    const grpc: GrpcOptions = {}
    if (port !== undefined) grpc.port = port
    if (reflectionSetting !== undefined) grpc.reflection = onOff(reflectionName, reflectionSetting)
    if (grpc.port === 'off' && grpc.reflection)
      throw new Error('--grpc-reflection needs the gRPC server: not with --grpc-port off')
    return Object.keys(grpc).length > 0 ? { grpc } : {}
  },
}
