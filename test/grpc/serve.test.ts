/**
 * Where the gRPC server listens: `switchboard serve` with a fixed HTTP port puts it on the next
 * port (printed in the banner, published in the cards), `--grpc-port off` has none; the flags,
 * environment and config file resolve as every serve setting does.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { describe, it } from 'node:test'
import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js'
import { service as healthService } from 'grpc-health-check'
import { grpcFlags } from '../../src/cli/serve-flags/grpc.ts'
import { grpcPortOf } from '../../src/server/grpc.ts'
import { spawnServer } from '../helpers/process.ts'

/** A port that is free, with the next one free too (checked by binding both). */
const freePortPair = async (): Promise<number> => {
  for (;;) {
    const first = createServer()
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve))
    const port = (first.address() as { port: number }).port
    const second = createServer()
    const free = await new Promise<boolean>((resolve) => {
      second.once('error', () => resolve(false))
      second.listen(port + 1, '127.0.0.1', () => resolve(true))
    })
    await new Promise((resolve) => first.close(resolve))
    if (free) await new Promise((resolve) => second.close(resolve))
    if (free && port < 65_535) return port
  }
}

const healthOf = (address: string): Promise<string> => {
  const Health = makeGenericClientConstructor(healthService, 'Health')
  const client = new Health(address, credentials.createInsecure())
  return new Promise<string>((resolve, reject) =>
    (client as unknown as { check: (...args: unknown[]) => void }).check(
      { service: '' },
      (error: Error | null, response: { status: string }) =>
        error ? reject(error) : resolve(response.status),
    ),
  ).finally(() => client.close())
}

describe('the gRPC port', () => {
  it('defaults to the HTTP port + 1, or an ephemeral one when the HTTP port is 0; off is off', () => {
    assert.equal(grpcPortOf(undefined, 3000), 3001)
    assert.equal(grpcPortOf({}, 0), 0)
    assert.equal(grpcPortOf({ port: 9000 }, 3000), 9000)
    assert.equal(grpcPortOf({ port: 'off' }, 3000), undefined)
    assert.throws(() => grpcPortOf({ port: 70_000 }, 3000), /grpc.port must be a port number/)
  })

  it('serve flags: --grpc-port wins over SWITCHBOARD_GRPC_PORT over grpc.port; bad values are named', () => {
    const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, file = {}) =>
      grpcFlags.resolve({ flags, env, file })
    assert.deepEqual(resolve({}), {})
    assert.deepEqual(resolve({}, {}, { grpc: { port: 7001, reflection: true } }), {
      grpc: { port: 7001, reflection: true },
    })
    assert.deepEqual(resolve({}, { SWITCHBOARD_GRPC_PORT: 'off' }, { grpc: { port: 7001 } }), {
      grpc: { port: 'off' },
    })
    assert.deepEqual(resolve({ grpcPort: '7002', grpcReflection: true }, { SWITCHBOARD_GRPC_PORT: 'off' }), {
      grpc: { port: 7002, reflection: true },
    })
    assert.throws(() => resolve({ grpcPort: 'fast' }), /--grpc-port must be a port number .* got "fast"/)
    assert.throws(() => resolve({}, { SWITCHBOARD_GRPC_PORT: '-1' }), /SWITCHBOARD_GRPC_PORT must be/)
    assert.throws(() => resolve({}, {}, { grpc: { port: 'x' } }), /grpc.port in the config file must be/)
    assert.throws(() => resolve({ grpcPort: 'off', grpcReflection: true }), /--grpc-reflection needs/)
  })

  it('`serve --port P` (like npm start) serves gRPC on P + 1, in the banner and the cards', async () => {
    const port = await freePortPair()
    const child = await spawnServer(['--port', String(port)])
    try {
      assert.match(child.output(), new RegExp(`A2A gRPC \\(all agents\\): +\\S+:${port + 1} `))
      const card = (await (
        await fetch(`${child.url}/agents/long-runner/.well-known/agent-card.json`)
      ).json()) as {
        supportedInterfaces: { url: string; protocolBinding: string; tenant?: string }[]
      }
      const grpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')
      assert.ok(grpc?.url.endsWith(`:${port + 1}`), JSON.stringify(grpc))
      assert.equal(grpc?.tenant, 'long-runner')
      assert.equal(await healthOf(`127.0.0.1:${port + 1}`), 'SERVING')
    } finally {
      await child.stop()
    }
  })

  it('`serve --grpc-port off`: no gRPC server, no GRPC interface', async () => {
    const child = await spawnServer(['--port', '0', '--grpc-port', 'off'])
    try {
      assert.doesNotMatch(child.output(), /gRPC/)
      const card = (await (
        await fetch(`${child.url}/agents/long-runner/.well-known/agent-card.json`)
      ).json()) as {
        supportedInterfaces: { protocolBinding: string }[]
      }
      assert.ok(!card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC'))
    } finally {
      await child.stop()
    }
  })
})
