/**
 * Registering a push URL resolves nothing: a name that does not resolve (RFC 6761 `.invalid`:
 * never, and without asking any DNS server) is accepted on both bindings, and the delivery
 * attempt fails it at dial time, visibly in the outbox. What the policy forbids by itself — a
 * private literal address, a metadata service name — is still refused at registration.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  BINDINGS,
  type Binding,
  eventually,
  type HttpResult,
  http,
  rest,
  rpc,
  startA2a,
  type TestServer,
} from './helpers.ts'

let server: TestServer
before(async () => {
  server = await startA2a()
})
after(() => server.close())

const echo = () => server.base('echo')
const message = () => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: {} }] })

const send = (binding: Binding, params: object): Promise<HttpResult> =>
  binding === 'JSONRPC' ? rpc(echo(), 'SendMessage', params) : rest(echo(), '/message:send', { body: params })

const create = (binding: Binding, taskId: string, config: object): Promise<HttpResult> =>
  binding === 'JSONRPC'
    ? rpc(echo(), 'CreateTaskPushNotificationConfig', { taskId, ...config })
    : rest(echo(), `/tasks/${taskId}/pushNotificationConfigs`, { body: config })

const result = (binding: Binding, response: HttpResult) => {
  if (binding === 'JSONRPC') {
    assert.equal(response.body.error, undefined, JSON.stringify(response.body.error))
    return response.body.result
  }
  assert.equal(response.status, 200, JSON.stringify(response.body))
  return response.body
}

/** InvalidParams whose message names the refused URL. */
const refused = (binding: Binding, response: HttpResult, url: string) => {
  const { error } = response.body
  if (binding === 'JSONRPC') assert.equal(error?.code, -32602, JSON.stringify(response.body))
  else assert.equal(response.status, 400, JSON.stringify(response.body))
  assert.ok(error.message.includes(`push notification url ${url} is refused`), error.message)
}

describe('A2A push registration without DNS', () => {
  for (const binding of BINDINGS) {
    describe(binding, () => {
      it('a name that does not resolve is registered; the delivery fails it when dialling', async () => {
        const url = `https://hooks-${binding === 'JSONRPC' ? 'rpc' : 'rest'}.example.invalid/a2a`
        const { task } = result(
          binding,
          await send(binding, {
            message: message(),
            configuration: { taskPushNotificationConfig: { url, token: 't' } },
          }),
        )
        const created = result(binding, await create(binding, task.id, { url: `${url}/2` }))
        assert.equal(created.url, `${url}/2`)
        const listed = result(
          'JSONRPC',
          await rpc(echo(), 'ListTaskPushNotificationConfigs', { taskId: task.id }),
        )
        assert.deepEqual(listed.configs.map((c: { url: string }) => c.url).sort(), [url, `${url}/2`])
        const failed = await eventually(async () => {
          const { body } = await http(`${server.url}/admin/deliveries?task_id=${task.id}`)
          const tried = body.deliveries.filter((d: { attempts: number }) => d.attempts > 0)
          return tried.length > 0 ? tried : undefined
        }, 'a delivery attempt')
        const host = new URL(url).hostname
        for (const delivery of failed) {
          assert.match(delivery.last_error, new RegExp(`ENOTFOUND.*${host.replace(/\./g, '\\.')}`))
          assert.doesNotMatch(delivery.last_error, /not allowed/, 'a DNS failure, not a policy refusal')
        }
      })

      it('a metadata service name or a private address is still refused, and nothing is stored', async () => {
        const { task } = result(binding, await send(binding, { message: message() }))
        for (const url of ['http://metadata.google.internal/computeMetadata/v1/', 'http://10.9.8.7/hook']) {
          refused(binding, await create(binding, task.id, { url }), url)
          refused(
            binding,
            await send(binding, {
              message: message(),
              configuration: { taskPushNotificationConfig: { url } },
            }),
            url,
          )
        }
        const listed = result(
          'JSONRPC',
          await rpc(echo(), 'ListTaskPushNotificationConfigs', { taskId: task.id }),
        )
        assert.deepEqual(listed.configs, [])
      })
    })
  }
})
