/**
 * A real @a2a-js/sdk 1.3 gRPC server, started inside a test: the gRPC peer our client must work
 * with besides our own server. The executor is test/client/sdk-agent.ts's (scripted by the input
 * data part). The card is served over HTTP (express) and lists the gRPC service as `host:port`
 * with a tenant, as our own server lists it; every call's metadata and tenant are recorded.
 */
import { once } from 'node:events'
import type { Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentCard } from '@a2a-js/sdk'
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server'
import { agentCardHandler } from '@a2a-js/sdk/server/express'
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc'
import { Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js'
import express from 'express'
import { ScriptedExecutor } from '../client/sdk-agent.ts'

/** What one call brought: its metadata (lowercase keys, first values) and the request's tenant. */
export interface SeenCall {
  metadata: Record<string, string>
  tenant: string | undefined
}

export interface SdkGrpcAgent {
  /** The HTTP base URL (the card). */
  url: string
  /** The gRPC service's host:port. */
  address: string
  tenant: string
  calls: SeenCall[]
  close(): Promise<void>
}

export const startSdkGrpcAgent = async (
  options: { tenant?: string; streaming?: boolean } = {},
): Promise<SdkGrpcAgent> => {
  const tenant = options.tenant ?? 'scripted'
  const grpc = new Server()
  const port = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  )
  const address = `127.0.0.1:${port}`
  const app = express()
  const http: HttpServer = app.listen(0, '127.0.0.1')
  await once(http, 'listening')
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const card = AgentCard.fromJSON({
    name: 'SDK Scripted gRPC Agent',
    description: 'An @a2a-js/sdk agent served over gRPC, scripted by its input, for client tests.',
    version: '1.3.0-test',
    supportedInterfaces: [{ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant }],
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [{ id: 'script', name: 'Script', description: 'Does what its input says.', tags: ['test'] }],
  })
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new ScriptedExecutor())
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }))
  const calls: SeenCall[] = []
  grpc.addService(
    A2AService,
    grpcService({
      requestHandler: handler,
      userBuilder: async (
        call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>,
      ) => {
        const metadata: Record<string, string> = {}
        for (const [key, value] of Object.entries(call.metadata.getMap())) metadata[key] = String(value)
        calls.push({ metadata, tenant: (call.request as { tenant?: string } | undefined)?.tenant })
        return UserBuilder.noAuthentication()
      },
    }),
  )
  return {
    url,
    address,
    tenant,
    calls,
    async close() {
      grpc.forceShutdown()
      http.closeAllConnections()
      http.close()
      await once(http, 'close')
    },
  }
}
