/**
 * The gRPC transport's pure pieces: where a card's GRPC `url` points (and whether with TLS),
 * which gRPC services get the connection's credentials, and what a bare gRPC status means.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Metadata, status } from '@grpc/grpc-js'
import { OriginCredentials } from '../../src/client/credentials.ts'
import { grpcTarget } from '../../src/client/transports/a2a-grpc.ts'
import { fromGrpcError } from '../../src/client/transports/a2a-grpc-wire.ts'

describe('grpcTarget', () => {
  it('host:port takes TLS from the agent URL; an absolute URL says it itself', () => {
    assert.deepEqual(grpcTarget('agents.example.com:8443', 'https://agents.example.com/agents/x'), {
      address: 'agents.example.com:8443',
      url: 'https://agents.example.com:8443',
      tls: true,
    })
    assert.equal(grpcTarget('127.0.0.1:9001', 'http://127.0.0.1:9000')?.tls, false)
    assert.equal(grpcTarget('[::1]:9001', undefined)?.address, '[::1]:9001')
    assert.deepEqual(grpcTarget('grpcs://a.example:1', 'http://a.example'), {
      address: 'a.example:1',
      url: 'https://a.example:1',
      tls: true,
    })
    assert.equal(grpcTarget('https://a.example', 'http://a.example')?.address, 'a.example:443')
    assert.equal(grpcTarget('grpc://a.example:5', 'https://a.example')?.tls, false)
  })

  it('no port, a path, a query, user info or another scheme is not a gRPC address', () => {
    for (const url of [
      'a.example',
      'http://a.example:1/a2a',
      'a.example:1?x=1',
      'https://u@a.example:1',
      'ftp://a.example:1',
      'not a host:1',
    ])
      assert.equal(grpcTarget(url, 'https://a.example'), undefined, url)
  })
})

describe('credentials for a gRPC service', () => {
  const http = new OriginCredentials('http://agents.example.com:8080/agents/x', { headers: { 'x-k': 'v' } })
  const https = new OriginCredentials('https://agents.example.com/agents/x', { headers: { 'x-k': 'v' } })

  it("go to the agent's host on any port, never to another host, never in clear text after https", async () => {
    assert.deepEqual(await http.headersForService('http://agents.example.com:8081'), { 'x-k': 'v' })
    assert.deepEqual(await https.headersForService('https://agents.example.com:8443'), { 'x-k': 'v' })
    assert.deepEqual(await https.headersForService('http://agents.example.com:8081'), {})
    assert.deepEqual(await http.headersForService('http://other.example.com:8081'), {})
    // The HTTP binding rule is unchanged: another port is another origin.
    assert.deepEqual(await http.headersFor('http://agents.example.com:8081/a2a'), {})
  })
})

describe('fromGrpcError without details', () => {
  const bare = (code: status, details: string) =>
    fromGrpcError(
      Object.assign(new Error(details), { code, details, metadata: new Metadata() }),
      'gRPC GetTask',
    )

  it('maps the status code, and tells what never reached the agent', () => {
    const cases: [status, string, string, boolean][] = [
      [status.NOT_FOUND, 'no task', 'TASK_NOT_FOUND', false],
      [status.PERMISSION_DENIED, 'no', 'FORBIDDEN', false],
      [status.RESOURCE_EXHAUSTED, 'slow down', 'RATE_LIMITED', false],
      [status.UNAUTHENTICATED, 'who', 'UNAUTHENTICATED', false],
      [status.DEADLINE_EXCEEDED, 'late', 'TIMEOUT', false],
      [status.UNAVAILABLE, 'going away', 'UNAVAILABLE', false],
      [
        status.UNAVAILABLE,
        'No connection established. Last error: connect ECONNREFUSED',
        'CONNECTION_FAILED',
        true,
      ],
      [status.UNIMPLEMENTED, 'unknown service lf.a2a.v1.A2AService', 'METHOD_NOT_FOUND', true],
      [status.DATA_LOSS, 'lost', 'INTERNAL', false],
    ]
    for (const [code, details, expected, unreachable] of cases) {
      const error = bare(code, details)
      assert.equal(error.code, expected, details)
      assert.equal(error.unreachable, unreachable, details)
      assert.equal(error.details?.grpcStatus, status[code])
    }
  })
})
