import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { connect, createServer, type Socket } from 'node:net'

/**
 * A TCP relay between one replica and PostgreSQL that can cut the network without closing
 * anything: while partitioned, bytes in both directions are held back (as TCP would keep
 * retransmitting them), and new connections get nowhere. `heal()` delivers everything held, in
 * order, as a network that comes back would.
 */
export interface PgProxy {
  /** The database URL with host and port replaced by the relay's. */
  url: string
  partition(): void
  heal(): void
  /** Resets every open connection (as a PostgreSQL restart would); new ones are relayed again. */
  reset(): void
  /** Bytes the partition holds back, either way: a request, or its answer, is on its way. */
  heldBytes(): number
  close(): Promise<void>
}

interface Direction {
  to: Socket
  held: Buffer[]
}

export const startPgProxy = async (databaseUrl: string): Promise<PgProxy> => {
  const target = new URL(databaseUrl)
  const sockets = new Set<Socket>()
  const directions = new Set<Direction>()
  let partitioned = false

  const relay = (from: Socket, to: Socket): void => {
    const direction: Direction = { to, held: [] }
    directions.add(direction)
    from.on('data', (chunk: Buffer) => {
      if (partitioned) direction.held.push(chunk)
      else to.write(chunk)
    })
    from.on('close', () => {
      directions.delete(direction)
      to.destroy()
    })
    from.on('error', () => from.destroy())
  }

  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    }
    relay(client, upstream)
    relay(upstream, client)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = new URL(databaseUrl)
  url.hostname = '127.0.0.1'
  url.port = String((server.address() as AddressInfo).port)
  return {
    url: url.toString(),
    partition() {
      partitioned = true
    },
    reset() {
      for (const socket of sockets) socket.resetAndDestroy()
    },
    heldBytes() {
      let bytes = 0
      for (const direction of directions) for (const chunk of direction.held) bytes += chunk.length
      return bytes
    },
    heal() {
      partitioned = false
      for (const direction of directions) {
        for (const chunk of direction.held.splice(0)) direction.to.write(chunk)
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    },
  }
}
