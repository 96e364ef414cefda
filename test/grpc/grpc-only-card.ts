import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CardStub {
  /** The base URL whose well-known card is the stub's. */
  url: string
  close(): Promise<void>
}

/**
 * Serves an agent's A2A card with only its GRPC interface, at `address` (a proxy in front of
 * the real service, or the service itself): a client of that card can reach the agent over
 * gRPC and nothing else. `keep`: other bindings to list too, after it.
 */
export const grpcOnlyCard = async (
  agentUrl: string,
  address: string,
  keep: string[] = [],
): Promise<CardStub> => {
  const card = (await (await fetch(`${agentUrl}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: { url: string; protocolBinding: string }[]
  }
  const listed = card.supportedInterfaces
  card.supportedInterfaces = [
    ...listed.filter((i) => i.protocolBinding === 'GRPC').map((i) => ({ ...i, url: address })),
    ...listed.filter((i) => keep.includes(i.protocolBinding)),
  ]
  if (!card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC'))
    throw new Error(`the card at ${agentUrl} has no GRPC interface`)
  const server = createServer((request, response) => {
    if (request.url !== '/.well-known/agent-card.json') return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
