/**
 * Media types: a JSON answer (errors included) comes in the media type the client asked for
 * (Accept) or sent its body in — application/a2a+json (1.0.1) or application/json (1.0.0) — else
 * the binding's own (HTTP+JSON: application/a2a+json; JSON-RPC: application/json). Streams stay
 * text/event-stream.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { JSON_CONTENT_TYPE, responseType } from '../../src/dialects/a2a/media-type.ts'
import { A2A_CONTENT_TYPE } from '../../src/dialects/a2a/wire/shapes.ts'
import { type HttpResult, http, readSse, rest, rpc, startA2a, type TestServer, V } from './helpers.ts'

const A2A = A2A_CONTENT_TYPE
const JSON_TYPE = JSON_CONTENT_TYPE

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server.close())

const echo = () => server.base('echo')
const message = () => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] } })
const typeOf = (response: { headers: Headers }) => response.headers.get('content-type')?.split(';')[0]

/** A raw POST: the body in the given Content-Type, the Accept header as given (fetch's own is `*\/*`). */
const post = (url: string, body: unknown, headers: Record<string, string>): Promise<HttpResult> =>
  http(url, { raw: JSON.stringify(body), headers: { ...V, ...headers } })

describe('A2A media types', () => {
  it('responseType: Accept by q, then specificity, then order; else the body’s type; else the binding’s', () => {
    const cases: [
      accept: string | undefined,
      contentType: string | undefined,
      fallback: string,
      expected: string,
    ][] = [
      [undefined, undefined, A2A, A2A],
      [undefined, undefined, JSON_TYPE, JSON_TYPE],
      ['*/*', undefined, A2A, A2A],
      ['*/*', 'application/json; charset=utf-8', A2A, JSON_TYPE],
      ['*/*', 'Application/A2A+JSON', JSON_TYPE, A2A],
      [undefined, 'text/plain', JSON_TYPE, JSON_TYPE],
      ['application/json', 'application/a2a+json', A2A, JSON_TYPE],
      ['application/a2a+json', 'application/json', JSON_TYPE, A2A],
      // @a2a-js/sdk's REST client: both, a2a+json first.
      ['application/a2a+json, application/json', 'application/json', JSON_TYPE, A2A],
      ['application/json, application/a2a+json', undefined, A2A, JSON_TYPE],
      ['application/json;q=0.5, application/a2a+json', undefined, JSON_TYPE, A2A],
      ['application/a2a+json;q=0.2, */*;q=0.9', undefined, A2A, JSON_TYPE],
      ['application/*, application/json', undefined, A2A, JSON_TYPE],
      ['text/html', 'application/json', A2A, JSON_TYPE],
      ['text/html', undefined, A2A, A2A],
      ['application/json;q=0', undefined, A2A, A2A],
      ['garbage,, ;q=x', undefined, JSON_TYPE, JSON_TYPE],
    ]
    for (const [accept, contentType, fallback, expected] of cases) {
      const headers = { accept, 'content-type': contentType }
      assert.equal(
        responseType(headers, fallback as typeof A2A),
        expected,
        `Accept ${accept}, Content-Type ${contentType}`,
      )
    }
  })

  describe('HTTP+JSON', () => {
    const send = () => `${echo()}/a2a/rest/message:send`

    it('answers a body in the type it came in, unless Accept asks for the other', async () => {
      const asJson = await post(send(), message(), { 'content-type': JSON_TYPE })
      assert.equal(asJson.status, 200)
      assert.equal(typeOf(asJson), JSON_TYPE)
      assert.ok(asJson.body.task.id, 'a JSON body either way')
      const asA2a = await post(send(), message(), { 'content-type': A2A })
      assert.equal(typeOf(asA2a), A2A)
      const asked = await post(send(), message(), { 'content-type': JSON_TYPE, accept: A2A })
      assert.equal(typeOf(asked), A2A)
      const sdk = await post(send(), message(), {
        'content-type': JSON_TYPE,
        accept: `${A2A}, ${JSON_TYPE}`,
      })
      assert.equal(typeOf(sdk), A2A)
    })

    it('a request without a body gets application/a2a+json unless Accept asks for application/json', async () => {
      const { task } = (await post(send(), message(), { 'content-type': A2A })).body
      const plain = await rest(echo(), `/tasks/${task.id}`)
      assert.equal(typeOf(plain), A2A)
      const json = await rest(echo(), `/tasks/${task.id}`, { headers: { accept: JSON_TYPE } })
      assert.equal(typeOf(json), JSON_TYPE)
      assert.equal(json.body.id, task.id)
      const list = await rest(echo(), '/tasks?pageSize=1', { headers: { accept: `${JSON_TYPE}, */*;q=0.1` } })
      assert.equal(typeOf(list), JSON_TYPE)
      const deleted = await rest(echo(), `/tasks/${task.id}/pushNotificationConfigs/${randomUUID()}`, {
        method: 'DELETE',
        headers: { accept: JSON_TYPE },
      })
      assert.equal(deleted.status, 200)
      assert.equal(typeOf(deleted), JSON_TYPE)
    })

    it('errors follow the same rule, also those raised before the route', async () => {
      const missing = `/tasks/${randomUUID()}`
      const json = await rest(echo(), missing, { headers: { accept: JSON_TYPE } })
      assert.equal(json.status, 404)
      assert.equal(typeOf(json), JSON_TYPE)
      assert.equal(json.body.error.status, 'NOT_FOUND')
      assert.equal(typeOf(await rest(echo(), missing)), A2A)
      const invalid = await post(send(), { message: {} }, { 'content-type': JSON_TYPE })
      assert.equal(invalid.status, 400)
      assert.equal(typeOf(invalid), JSON_TYPE)
      const noVersion = await http(`${echo()}/a2a/rest${missing}`, { headers: { accept: JSON_TYPE } })
      assert.equal(noVersion.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED')
      assert.equal(typeOf(noVersion), JSON_TYPE)
      const noRoute = await rest(echo(), '/nothing/here', { headers: { accept: JSON_TYPE } })
      assert.equal(noRoute.status, 404)
      assert.equal(typeOf(noRoute), JSON_TYPE)
      const wrongType = await http(send(), {
        raw: '{}',
        headers: { ...V, 'content-type': 'text/plain', accept: JSON_TYPE },
      })
      assert.equal(wrongType.status, 415)
      assert.equal(typeOf(wrongType), JSON_TYPE)
      assert.match(wrongType.body.error.message, /application\/json or application\/a2a\+json/)
      const badJson = await http(send(), { raw: '{', headers: { ...V, 'content-type': A2A } })
      assert.equal(badJson.status, 400)
      assert.equal(typeOf(badJson), A2A)
    })

    it('streams are text/event-stream whatever the request', async () => {
      const stream = await readSse(`${echo()}/a2a/rest/message:stream`, {
        body: message(),
        headers: { ...V, 'content-type': A2A, accept: A2A },
      })
      assert.equal(stream.status, 200)
      assert.equal(typeOf(stream), 'text/event-stream')
      assert.ok(stream.events.length > 0)
    })
  })

  describe('JSON-RPC', () => {
    const endpoint = () => `${echo()}/a2a/jsonrpc`
    const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params })

    it('answers application/json unless the client sent or asked for application/a2a+json', async () => {
      const plain = await rpc(echo(), 'SendMessage', message())
      assert.equal(typeOf(plain), JSON_TYPE)
      assert.ok(plain.body.result.task.id)
      const sentA2a = await post(endpoint(), call('SendMessage', message()), { 'content-type': A2A })
      assert.equal(typeOf(sentA2a), A2A)
      assert.ok(sentA2a.body.result.task.id)
      const askedA2a = await post(endpoint(), call('SendMessage', message()), {
        'content-type': JSON_TYPE,
        accept: A2A,
      })
      assert.equal(typeOf(askedA2a), A2A)
      const askedJson = await post(endpoint(), call('SendMessage', message()), {
        'content-type': A2A,
        accept: JSON_TYPE,
      })
      assert.equal(typeOf(askedJson), JSON_TYPE)
    })

    it('errors follow the same rule, also those raised before the method', async () => {
      const notFound = await post(endpoint(), call('GetTask', { id: randomUUID() }), { 'content-type': A2A })
      assert.equal(notFound.body.error.code, -32001)
      assert.equal(typeOf(notFound), A2A)
      assert.equal(typeOf(await rpc(echo(), 'GetTask', { id: randomUUID() })), JSON_TYPE)
      const parseError = await http(endpoint(), { raw: '{', headers: { ...V, 'content-type': A2A } })
      assert.equal(parseError.body.error.code, -32700)
      assert.equal(typeOf(parseError), A2A)
      const noMethod = await post(endpoint(), call('Nope', {}), { 'content-type': JSON_TYPE, accept: A2A })
      assert.equal(noMethod.body.error.code, -32601)
      assert.equal(typeOf(noMethod), A2A)
    })

    it('streams are text/event-stream whatever the request', async () => {
      const stream = await readSse(endpoint(), {
        body: call('SendStreamingMessage', message()),
        headers: { ...V, 'content-type': A2A, accept: A2A },
      })
      assert.equal(typeOf(stream), 'text/event-stream')
      assert.ok(stream.events.length > 0)
    })
  })
})
