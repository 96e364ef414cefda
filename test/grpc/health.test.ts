/**
 * The gRPC server's own services: grpc.health.v1 says SERVING while the server is ready (and
 * NOT_SERVING while the store does not answer, and on close), and reflection lists lf.a2a.v1.A2AService only when turned on.
 */
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import {
  type Client,
  credentials,
  loadPackageDefinition,
  makeGenericClientConstructor,
  status,
} from '@grpc/grpc-js'
import { loadSync } from '@grpc/proto-loader'
import { service as healthService } from 'grpc-health-check'
import { startA2a, type TestServer } from '../a2a/helpers.ts'
import { grpcAddressOf } from './helpers.ts'

const HealthClient = makeGenericClientConstructor(healthService, 'Health')

const check = (client: Client, service: string): Promise<{ status?: string; code?: number }> =>
  new Promise((resolve) => {
    ;(client as unknown as { check: (...args: unknown[]) => void }).check(
      { service },
      (error: { code: number } | null, response: { status: string }) =>
        resolve(error ? { code: error.code } : { status: response.status }),
    )
  })

const reflectionProto = join(
  dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
  '../proto/grpc/reflection/v1/reflection.proto',
)

/** The services reflection lists, or the status code of a server without reflection. */
const listServices = (server: TestServer): Promise<string[] | number> => {
  const loaded = loadPackageDefinition(loadSync(reflectionProto)) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: new (address: string, creds: unknown) => Client } } }
  }
  const client = new loaded.grpc.reflection.v1.ServerReflection(
    grpcAddressOf(server),
    credentials.createInsecure(),
  )
  return new Promise((resolve) => {
    const call = (
      client as unknown as {
        serverReflectionInfo: () => import('@grpc/grpc-js').ClientDuplexStream<object, object>
      }
    ).serverReflectionInfo()
    call.on('data', (response: { listServicesResponse?: { service: { name: string }[] } }) => {
      resolve(response.listServicesResponse?.service.map((s) => s.name) ?? [])
      call.end()
    })
    call.on('error', (error: { code: number }) => resolve(error.code))
    call.write({ listServices: '' })
  }).finally(() => client.close()) as Promise<string[] | number>
}

describe('gRPC health and reflection', () => {
  it('health is SERVING for the server and for lf.a2a.v1.A2AService while ready; unknown services are NOT_FOUND', async () => {
    const server = await startA2a()
    const client = new HealthClient(grpcAddressOf(server), credentials.createInsecure())
    try {
      assert.deepEqual(await check(client, ''), { status: 'SERVING' })
      assert.deepEqual(await check(client, 'lf.a2a.v1.A2AService'), { status: 'SERVING' })
      assert.deepEqual(await check(client, 'no.such.Service'), { code: status.NOT_FOUND })
    } finally {
      client.close()
      await server.close()
    }
  })

  it('reflection is off by default', async () => {
    const server = await startA2a()
    try {
      assert.equal(await listServices(server), status.UNIMPLEMENTED)
    } finally {
      await server.close()
    }
  })

  it('with reflection on, it lists lf.a2a.v1.A2AService', async () => {
    const server = await startA2a({ grpc: { reflection: true } })
    try {
      const services = await listServices(server)
      assert.ok(Array.isArray(services), `reflection answered: ${services}`)
      assert.ok(services.includes('lf.a2a.v1.A2AService'), services.join(', '))
    } finally {
      await server.close()
    }
  })
})
