import { type DescFile, toBinary } from '@bufbuild/protobuf'
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt'
import { experimental, Server, ServerCredentials } from '@grpc/grpc-js'
import { ReflectionService } from '@grpc/reflection'
import type { Tracer } from '@opentelemetry/api'
import { HealthImplementation } from 'grpc-health-check'
import type { A2aGrpcOptions } from '../dialects/a2a/grpc/calls.ts'
import { a2aGrpcImplementation } from '../dialects/a2a/grpc/service.ts'
import { file_lf_a2a_v1_a2a } from '../dialects/a2a/wire/grpc/lf/a2a/v1/a2a_pb.ts'
import { A2A_GRPC_SERVICE_NAME, a2aGrpcService } from '../dialects/a2a/wire/grpc-service.ts'
import type { EngineLogger } from '../engine/logger.ts'
import { identifyTraced, traceGrpcImplementation } from '../observability/tracing-grpc.ts'
import type { TlsOptions } from './exposure.ts'

/** The gRPC binding's server settings (`--grpc-port`, `--grpc-reflection`; docs/a2a.md "gRPC"). */
export interface GrpcOptions {
  /**
   * The port of the one gRPC server of all agents, or `off`. Default: the HTTP port + 1, or an
   * ephemeral port when the HTTP port is 0.
   */
  port?: number | 'off'
  /** Serve gRPC server reflection (grpc.reflection.v1) for lf.a2a.v1.A2AService. Default off. */
  reflection?: boolean
}

/** The gRPC port a server listens on, from its options and the configured HTTP port; undefined when off. */
export const grpcPortOf = (options: GrpcOptions | undefined, httpPort: number): number | undefined => {
  const port = options?.port
  if (port === 'off') return undefined
  if (port === undefined) return httpPort === 0 ? 0 : httpPort + 1
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new TypeError(`grpc.port must be a port number (0 for any free one) or 'off', got ${String(port)}`)
  return port
}

/** How often the health service asks the store whether the server is ready (like /readyz). */
const HEALTH_POLL_MS = 5_000

/**
 * Certificates that never change, for grpc-js's certificate-provider credentials. They are handed
 * over on the next microtask: grpc-js registers the server's watcher only after asking for them,
 * and a synchronous answer would reach nobody.
 */
const staticProvider = (identity: { certificate: Buffer; privateKey: Buffer } | null, ca: Buffer | null) => ({
  addCaCertificateListener: (listener: (update: { caCertificate: Buffer } | null) => void) =>
    queueMicrotask(() => listener(ca && { caCertificate: ca })),
  removeCaCertificateListener() {},
  addIdentityCertificateListener: (listener: (update: typeof identity) => void) =>
    queueMicrotask(() => listener(identity)),
  removeIdentityCertificateListener() {},
})

/**
 * TLS with the HTTP server's certificate and key. With a client CA a certificate is asked for but
 * not required, as on HTTP: a caller without one may authenticate another way, and only one the CA
 * verified reaches the authenticators.
 */
const credentialsOf = (tls: TlsOptions | undefined): ServerCredentials => {
  if (!tls) return ServerCredentials.createInsecure()
  const identity = { certificate: Buffer.from(tls.cert), privateKey: Buffer.from(tls.key) }
  if (tls.clientCa === undefined)
    return ServerCredentials.createSsl(null, [
      { cert_chain: identity.certificate, private_key: identity.privateKey },
    ])
  return experimental.createCertificateProviderServerCredentials(
    staticProvider(identity, null),
    staticProvider(null, Buffer.from(tls.clientCa)),
    false,
  )
}

/** The proto files of the service and everything they import, as reflection serves them. */
const descriptorsOf = (file: DescFile, seen = new Map<string, Buffer>()): Buffer[] => {
  if (!seen.has(file.name)) {
    seen.set(file.name, Buffer.from(toBinary(FileDescriptorProtoSchema, file.proto)))
    for (const dependency of file.dependencies) descriptorsOf(dependency, seen)
  }
  return [...seen.values()]
}

export interface SwitchboardGrpc {
  /** Binds the port (after the HTTP server) and starts serving; resolves with the bound port. */
  listen(): Promise<number>
  /** Once the engine runs: health follows readiness from now on (NOT_SERVING until then). */
  startHealth(): Promise<void>
  /** `host:port` as the cards publish it, once listening. */
  address(): string | undefined
  close(): Promise<void>
}

/**
 * The one gRPC server of a Switchboard: lf.a2a.v1.A2AService for every agent (the request's
 * `tenant` picks it), grpc.health.v1 (SERVING while ready), and reflection when asked for.
 */
export const createGrpcServer = (options: {
  port: number
  host: string
  /** The host clients reach the server at (the public URL's), for the cards. */
  publicHost: () => string
  tls: TlsOptions | undefined
  /** The largest request message accepted, in bytes: the HTTP body limit (grpc-js: RESOURCE_EXHAUSTED past it). */
  maxMessageBytes: number
  reflection: boolean
  binding: A2aGrpcOptions
  ready: () => Promise<boolean>
  logger: EngineLogger
  /** Trace every call (absent: tracing is off). */
  tracing?: { tracer: Tracer; defaultAgent: string }
}): SwitchboardGrpc => {
  const server = new Server({ 'grpc.max_receive_message_length': options.maxMessageBytes })
  const implementation = a2aGrpcImplementation(
    options.tracing
      ? { ...options.binding, identify: identifyTraced(options.binding.identify) }
      : options.binding,
  )
  server.addService(
    a2aGrpcService,
    options.tracing
      ? traceGrpcImplementation(implementation, options.tracing.tracer, options.tracing.defaultAgent)
      : implementation,
  )
  const health = new HealthImplementation({ '': 'NOT_SERVING', [A2A_GRPC_SERVICE_NAME]: 'NOT_SERVING' })
  health.addToServer(server)
  if (options.reflection) {
    const definition = {
      [A2A_GRPC_SERVICE_NAME]: { fileDescriptorProtos: descriptorsOf(file_lf_a2a_v1_a2a) },
    }
    new ReflectionService(definition as never, { services: [A2A_GRPC_SERVICE_NAME] }).addToServer(server)
  }
  let port: number | undefined
  let poll: NodeJS.Timeout | undefined
  const setServing = (serving: boolean) => {
    const state = serving ? 'SERVING' : 'NOT_SERVING'
    health.setStatus('', state)
    health.setStatus(A2A_GRPC_SERVICE_NAME, state)
  }
  const check = () => options.ready().then(setServing, () => setServing(false))
  return {
    async listen() {
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      port = await new Promise<number>((resolve, reject) =>
        server.bindAsync(`${host}:${options.port}`, credentialsOf(options.tls), (error, bound) =>
          error
            ? reject(new Error(`the gRPC server cannot listen on ${host}:${options.port}: ${error.message}`))
            : resolve(bound),
        ),
      )
      return port
    },
    async startHealth() {
      await check()
      poll = setInterval(check, HEALTH_POLL_MS).unref()
    },
    address: () => (port === undefined ? undefined : `${options.publicHost()}:${port}`),
    async close() {
      clearInterval(poll)
      setServing(false)
      // Open streams end with the engine (their subscriptions close); whatever is left is cut.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown()
          resolve()
        }, 1_000)
        server.tryShutdown(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
  }
}
