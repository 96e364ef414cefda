/**
 * Push delivery attempts and ctx.fetchFile under tracing: one CLIENT span per attempt with its
 * outcome, the attempt's context sent as traceparent, SSRF refusals recorded as policy decisions.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, beforeEach, describe, it } from 'node:test'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { createGuardedDispatcher } from '../../src/outbound/ssrf.ts'
import { postNotification } from '../../src/push/attempt.ts'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
provider.register()

const seen: IncomingHttpHeaders[] = []
let answers: number[] = []
const receiver = createServer((req, res) => {
  seen.push(req.headers)
  req.resume()
  res.statusCode = answers.shift() ?? 200
  res.end()
})
let url = ''
before(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=secret`
})
after(async () => {
  receiver.close()
  await provider.shutdown()
})
beforeEach(() => {
  exporter.reset()
  seen.length = 0
})

describe('push delivery attempts', () => {
  it('a retry and a delivery: two push.deliver spans, each sent as the traceparent of its POST', async () => {
    answers = [503, 200]
    const dispatcher = createGuardedDispatcher({ allow: ['127.0.0.0/8'] })
    const attempt = {
      dispatcher,
      url,
      body: '{}',
      headers: { 'content-type': 'application/json' },
      timeoutMs: 5_000,
    }
    assert.equal((await postNotification(attempt)).outcome, 'retry')
    assert.equal((await postNotification(attempt)).outcome, 'delivered')
    await dispatcher.close()
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'push.deliver')
    assert.deepEqual(
      spans.map((s) => [s.attributes['switchboard.push.outcome'], s.attributes['http.response.status_code']]),
      [
        ['retry', 503],
        ['delivered', 200],
      ],
    )
    assert.equal(
      spans[0]!.attributes['url.full'],
      url.split('?')[0],
      'the query (a credential) is not recorded',
    )
    assert.deepEqual(
      seen.map((h) => h.traceparent),
      spans.map((s) => `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`),
    )
  })

  it('an SSRF refusal is a dead attempt whose span names the policy decision and its reason', async () => {
    const dispatcher = createGuardedDispatcher({})
    const result = await postNotification({ dispatcher, url, body: '{}', headers: {}, timeoutMs: 5_000 })
    await dispatcher.close()
    assert.equal(result.outcome, 'dead')
    const [span] = exporter.getFinishedSpans()
    assert.equal(span?.attributes['switchboard.policy.decision'], 'ssrf-refused')
    assert.match(String(span?.attributes['switchboard.policy.reason']), /not allowed/)
    assert.equal(seen.length, 0)
  })
})
