import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { lookup as dnsLookup } from 'node:dns/promises'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { TLSSocket } from 'node:tls'
import { type Dispatcher, request } from 'undici'
import { isSwitchboardError } from '../../src/model/errors.ts'
import { compilePolicy, refusalReason } from '../../src/outbound/address-policy.ts'
import {
  assertUrlAllowed,
  createGuardedDispatcher,
  findRefusal,
  type LookupAll,
} from '../../src/outbound/ssrf.ts'
import { installLoopbackTripwire, type Receiver, startReceiver } from './helpers.ts'

/**
 * Names that exist only here: the system resolver has never heard of them. Only localhost goes
 * to the system (it answers from /etc/hosts), so no test sends a DNS query anywhere.
 */
const lookup: LookupAll = async (hostname) => {
  switch (hostname) {
    case 'localhost':
      return dnsLookup(hostname, { all: true })
    case 'loopback.test':
    case 'push.test':
      return [{ address: '127.0.0.1', family: 4 }]
    case 'mixed.test':
      return [
        { address: '127.0.0.2', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]
    case 'private.test':
      return [{ address: '10.1.2.3', family: 4 }]
    default:
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
  }
}

/** Counts every TCP client socket the process creates while `action` runs. */
const socketsOpenedBy = async (action: () => Promise<void>): Promise<number> => {
  let opened = 0
  const onSocket = () => {
    opened += 1
  }
  subscribe('net.client.socket', onSocket)
  try {
    await action()
  } finally {
    unsubscribe('net.client.socket', onSocket)
  }
  return opened
}

const refusedWith =
  (host: string) =>
  (error: unknown): boolean => {
    const refusal = findRefusal(error)
    assert.ok(refusal, `expected URL_NOT_ALLOWED, got ${String(error)}`)
    assert.equal(refusal.code, 'URL_NOT_ALLOWED')
    assert.ok(refusal.message.startsWith(`URL host "${host}" is not allowed: `), refusal.message)
    return true
  }

describe('SSRF guard', () => {
  let v4: Receiver
  let v6Port: number
  let v6Connections = 0
  // Plain HTTP on ::1, answering 204 so the allow-listed case can tell it from the IPv4 listener.
  const v6 = createHttpServer((_req, res) => {
    res.writeHead(204).end()
  }).on('connection', () => {
    v6Connections += 1
  })

  let tripwire: Awaited<ReturnType<typeof installLoopbackTripwire>>

  before(async () => {
    tripwire = await installLoopbackTripwire()
    v4 = await startReceiver()
    v6.listen(0, '::1')
    await once(v6, 'listening')
    v6Port = (v6.address() as AddressInfo).port
  })

  after(async () => {
    await tripwire.uninstall()
    await v4.close()
    v6.closeAllConnections()
    v6.close()
  })

  // Each host on the port of a live loopback listener, so a leak would be seen, not just refused.
  const blocked: Array<[label: string, host: string]> = [
    ['IPv4 loopback', '127.0.0.1'],
    ['localhost', 'localhost'],
    ['IPv6 loopback', '[::1]'],
    ['IPv4-mapped loopback', '[::ffff:127.0.0.1]'],
    ['decimal IPv4 loopback', '2130706433'],
    ['private 10/8', '10.0.0.1'],
    ['private 172.16/12', '172.16.0.1'],
    ['private 192.168/16', '192.168.1.1'],
    ['cloud metadata (link-local)', '169.254.169.254'],
    ['CGNAT 100.64/10', '100.64.0.1'],
    ['unspecified 0.0.0.0', '0.0.0.0'],
    ['unspecified ::', '[::]'],
    ['IPv6 link-local', '[fe80::1]'],
    ['IPv6 unique local', '[fc00::1]'],
    ['multicast', '224.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['reserved (TEST-NET-3)', '203.0.113.7'],
    ['NAT64 embedding loopback', '[64:ff9b::7f00:1]'],
    ['6to4 embedding loopback', '[2002:7f00:1::]'],
    ['IPv4-compatible loopback', '[::7f00:1]'],
    ['a name resolving to loopback', 'loopback.test'],
    ['a name resolving to a private address', 'private.test'],
  ]

  for (const [label, host] of blocked) {
    test(`refuses ${label} (${host}) before any socket opens`, async () => {
      const port = host === '[::1]' ? v6Port : v4.port
      const url = `http://${host}:${port}/hook`
      // Named as the URL parser normalised it: "2130706433" is 127.0.0.1, brackets dropped.
      const named = new URL(url).hostname.replace(/^\[|\]$/g, '')
      if (named.endsWith('.test')) {
        // Only the dial resolves a name: registration leaves it to the guard.
        await assertUrlAllowed(url, {})
      } else {
        await assert.rejects(assertUrlAllowed(url, {}), refusedWith(named))
      }
      const dispatcher = createGuardedDispatcher({}, { lookup })
      try {
        const opened = await socketsOpenedBy(async () => {
          await assert.rejects(request(url, { dispatcher, method: 'POST', body: '{}' }), (error: unknown) =>
            Boolean(findRefusal(error)),
          )
        })
        assert.equal(opened, 0, 'no socket may be created for a refused address')
      } finally {
        await dispatcher.close()
      }
    })
  }

  test('the loopback listeners never saw a connection, and nothing tried to leave the host', () => {
    assert.equal(v4.connections(), 0)
    assert.equal(v6Connections, 0)
    assert.deepEqual(tripwire.tripped, [])
  })

  test('one refused address refuses the whole name, even behind an allowed one', async () => {
    const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.2/32'] }, { lookup })
    try {
      const opened = await socketsOpenedBy(async () => {
        await assert.rejects(
          request(`http://mixed.test:${v4.port}/hook`, { dispatcher }),
          refusedWith('mixed.test'),
        )
      })
      assert.equal(opened, 0)
    } finally {
      await dispatcher.close()
    }
  })

  test('an allow-listed loopback range, address or name is reachable', async () => {
    const cases: Array<[string[], string, number]> = [
      [['127.0.0.0/8'], `http://127.0.0.1:${v4.port}/hook`, 200],
      [['127.0.0.1'], `http://[::ffff:127.0.0.1]:${v4.port}/hook`, 200],
      [['localhost'], `http://localhost:${v4.port}/hook`, 200],
      [['::1/128'], `http://[::1]:${v6Port}/hook`, 204],
    ]
    for (const [allow, url, status] of cases) {
      const dispatcher = createGuardedDispatcher({ allow })
      try {
        await assertUrlAllowed(url, { allow })
        const response = await request(url, { dispatcher, method: 'POST', body: '{}' })
        await response.body.dump()
        assert.equal(response.statusCode, status, url)
      } finally {
        await dispatcher.close()
      }
    }
    assert.ok(v4.received.length >= 3)
  })

  test('dials the vetted address, never the name again (DNS rebinding)', async () => {
    let lookups = 0
    const counting: LookupAll = async (hostname) => {
      lookups += 1
      return lookup(hostname)
    }
    const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] }, { lookup: counting })
    try {
      // loopback.test does not exist in real DNS: had the socket resolved it again, this would fail.
      const response = await request(`http://loopback.test:${v4.port}/hook`, {
        dispatcher,
        method: 'POST',
        body: '{}',
      })
      await response.body.dump()
      assert.equal(response.statusCode, 200)
      assert.equal(lookups, 1)
      assert.equal(v4.received.at(-1)?.headers.host, `loopback.test:${v4.port}`)
    } finally {
      await dispatcher.close()
    }
  })

  test('TLS keeps the hostname for SNI and certificate checks while dialling the IP', async () => {
    const cert = readFileSync(new URL('./fixtures/push.test.crt', import.meta.url))
    const key = readFileSync(new URL('./fixtures/push.test.key', import.meta.url))
    const servernames: Array<string | false> = []
    const server = createHttpsServer({ cert, key }, (req, res) => {
      servernames.push((req.socket as TLSSocket).servername || false)
      res.writeHead(200).end()
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] }, { lookup, connect: { ca: cert } })
    try {
      const response = await request(`https://push.test:${port}/hook`, {
        dispatcher,
        method: 'POST',
        body: '{}',
      })
      await response.body.dump()
      assert.equal(response.statusCode, 200)
      assert.deepEqual(servernames, ['push.test'])
    } finally {
      await dispatcher.close()
      server.closeAllConnections()
      server.close()
    }
  })

  describe('redirects', () => {
    const redirecting = async (location: string): Promise<Receiver> =>
      startReceiver((_request, n) => (n === 0 ? { status: 302, headers: { location } } : { status: 200 }))

    const get = async (dispatcher: Dispatcher, url: string) => {
      const response = await request(url, { dispatcher })
      await response.body.dump()
      return response.statusCode
    }

    test('are not followed by default', async () => {
      const receiver = await redirecting('/elsewhere')
      const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] })
      try {
        assert.equal(await get(dispatcher, receiver.url), 302)
        assert.equal(receiver.received.length, 1)
      } finally {
        await dispatcher.close()
        await receiver.close()
      }
    })

    test('when enabled, every hop is vetted again', async () => {
      const before = v6Connections
      const receiver = await redirecting(`http://[::1]:${v6Port}/hook`)
      const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] }, { maxRedirections: 3 })
      try {
        await assert.rejects(get(dispatcher, receiver.url), refusedWith('::1'))
        assert.equal(receiver.received.length, 1)
        assert.equal(v6Connections, before, 'the refused hop never connected')
      } finally {
        await dispatcher.close()
        await receiver.close()
      }
      const allowed = await redirecting('/elsewhere')
      const following = createGuardedDispatcher({ allow: ['127.0.0.0/8'] }, { maxRedirections: 3 })
      try {
        assert.equal(await get(following, allowed.url), 200)
        assert.equal(allowed.received.length, 2)
      } finally {
        await following.close()
        await allowed.close()
      }
    })
  })
})

describe('assertUrlAllowed', () => {
  test('accepts public unicast hosts without sending anything', async () => {
    await assertUrlAllowed('https://8.8.8.8/hook')
    await assertUrlAllowed('http://[2606:4700:4700::1111]/hook')
    await assertUrlAllowed('https://[::ffff:8.8.8.8]/hook')
  })

  test('refuses other schemes and unreadable URLs', async () => {
    const cases: Array<[string, RegExp]> = [
      ['ftp://8.8.8.8/hook', /scheme ftp: is not http or https/],
      ['file:///etc/passwd', /scheme file:/],
      ['not a url', /not a valid absolute URL/],
    ]
    for (const [url, message] of cases) {
      await assert.rejects(
        assertUrlAllowed(url, {}),
        (error: unknown) =>
          isSwitchboardError(error) && error.code === 'URL_NOT_ALLOWED' && message.test(error.message),
        url,
      )
    }
  })

  test('resolves nothing: a name that does not resolve is left to the dial', async () => {
    for (const url of [
      'http://nowhere.test/hook',
      'https://hooks.example.invalid/x',
      'http://not-yet-in-dns.example.com:8080/hook',
    ]) {
      await assertUrlAllowed(url, {})
    }
  })

  test('refuses names that can only reach what the policy forbids, unless it allows them', async () => {
    const refused: Array<[string, RegExp]> = [
      ['http://localhost/hook', /"localhost".*loopback name \(127\.0\.0\.1 is in the loopback range\)/],
      ['http://LocalHost./hook', /"localhost\.?".*loopback name/],
      ['http://hooks.localhost:8080/hook', /"hooks\.localhost".*loopback name/],
      ['http://metadata.google.internal/computeMetadata/v1/', /cloud metadata service/],
      ['http://metadata/computeMetadata/v1/', /cloud metadata service/],
      ['http://instance-data/latest/meta-data', /cloud metadata service/],
    ]
    for (const [url, message] of refused) {
      await assert.rejects(
        assertUrlAllowed(url, {}),
        (error: unknown) =>
          isSwitchboardError(error) && error.code === 'URL_NOT_ALLOWED' && message.test(error.message),
        url,
      )
    }
    await assertUrlAllowed('http://localhost/hook', { allow: ['localhost'] })
    await assertUrlAllowed('http://localhost/hook', { allow: ['127.0.0.0/8'] })
    await assertUrlAllowed('http://a.localhost/hook', { allow: ['::1'] })
    await assertUrlAllowed('http://metadata.goog/', { allow: ['169.254.0.0/16'] })
  })

  test('the dial fails a name under .invalid at once, as RFC 6761 asks, without a socket', async () => {
    const dispatcher = createGuardedDispatcher({})
    try {
      const opened = await socketsOpenedBy(async () => {
        await assert.rejects(request('http://hooks.example.invalid/x', { dispatcher }), (error: unknown) => {
          assert.equal(findRefusal(error), undefined, 'not a policy refusal')
          assert.equal((error as { code?: string }).code, 'ENOTFOUND')
          assert.equal((error as { hostname?: string }).hostname, 'hooks.example.invalid')
          return true
        })
      })
      assert.equal(opened, 0)
    } finally {
      await dispatcher.close()
    }
  })

  test('names the host and the reason', async () => {
    await assert.rejects(assertUrlAllowed('http://169.254.169.254/latest/meta-data', {}), {
      code: 'URL_NOT_ALLOWED',
      message: 'URL host "169.254.169.254" is not allowed: 169.254.169.254 is in the linkLocal range',
    })
    await assert.rejects(assertUrlAllowed('http://[64:ff9b::a00:1]/', {}), {
      message: /NAT64 IPv6 embedding 10\.0\.0\.1, in the private range/,
    })
  })
})

describe('outbound policy', () => {
  test('rejects entries that are neither CIDR, address nor hostname', () => {
    for (const entry of ['10.0.0.0/33', 'fe80::/200', 'not a host!', '']) {
      assert.throws(() => compilePolicy({ allow: [entry] }), { code: 'INVALID_REQUEST' }, entry)
    }
  })

  test('classifies addresses: only unicast passes unless allowed', () => {
    const none = compilePolicy()
    assert.equal(refusalReason(none, '8.8.8.8'), undefined)
    assert.equal(refusalReason(none, '::ffff:8.8.8.8'), undefined)
    assert.equal(refusalReason(none, '2606:4700:4700::1111'), undefined)
    assert.match(
      refusalReason(none, '::ffff:10.0.0.1') ?? '',
      /IPv4-mapped: 10\.0\.0\.1 is in the private range/,
    )
    assert.match(refusalReason(none, '2001:0:4136:e378:8000:63bf:80ff:fffe') ?? '', /Teredo.*127\.0\.0\.1/)
    const loopback = compilePolicy({ allow: ['127.0.0.0/8', '::1/128'] })
    assert.equal(refusalReason(loopback, '127.5.5.5'), undefined)
    assert.equal(refusalReason(loopback, '::ffff:127.0.0.1'), undefined)
    assert.equal(refusalReason(loopback, '::1'), undefined)
    assert.match(refusalReason(loopback, '10.0.0.1') ?? '', /private/)
  })
})
