/** Server-side fetches of client-supplied URLs (`ctx.fetchFile`) go through the SSRF guard. */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { readSse } from '../helpers/sse.ts'

let connections = 0
const files = createServer((req, res) => {
  if (req.url === '/big.csv') {
    res.writeHead(200, { 'content-type': 'text/csv' })
    res.end(`n\n${'1\n'.repeat(9 * 1024 * 1024)}`)
    return
  }
  res
    .writeHead(req.url === '/data.csv' ? 200 : 404, { 'content-type': 'text/csv' })
    .end('name,score\nada,3\nalan,5\n')
})
files.on('connection', () => {
  connections += 1
})
let fileUrl: string

const finished = async (server: TestServer, input: object) => {
  const base = `${server.url}/agents/csv-analyst`
  const { body } = await request(`${base}/tasks`, { body: { input } })
  const { events } = await readSse(`${base}/tasks/${body.task_id}/stream`)
  return JSON.parse(events.filter((e) => e.event === 'status').at(-1)!.data)
}

before(async () => {
  files.listen(0, '127.0.0.1')
  await once(files, 'listening')
  fileUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
})
after(() => {
  files.closeAllConnections()
  files.close()
})

describe('ctx.fetchFile', () => {
  it('is refused before connecting when the address is not allowed (the production default)', async () => {
    const server = await startServer({ outbound: { allow: [] } })
    try {
      for (const url of [
        `${fileUrl}/data.csv`,
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:127.0.0.1]:1/x',
      ]) {
        const task = await finished(server, { csv_url: url })
        assert.equal(task.status, 'FAILED')
        assert.equal(task.error.code, 'URL_NOT_ALLOWED', url)
      }
      assert.equal(connections, 0)
    } finally {
      await server.close()
    }
  })

  it('downloads an allowed URL, and fails cleanly on a 404 or an oversized file', async () => {
    const server = await startServer()
    try {
      const done = await finished(server, { csv_url: `${fileUrl}/data.csv` })
      assert.equal(done.status, 'COMPLETED')
      assert.equal(done.output.rows, 2)
      const missing = await finished(server, { csv_url: `${fileUrl}/nope.csv` })
      assert.equal(missing.error.code, 'FETCH_FAILED')
      assert.match(missing.error.message, /404/)
      const big = await finished(server, { csv_url: `${fileUrl}/big.csv` })
      assert.equal(big.error.code, 'FILE_TOO_LARGE')
    } finally {
      await server.close()
    }
  })
})
