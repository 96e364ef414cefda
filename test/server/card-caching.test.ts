/**
 * Card caching (RFC 9110 conditional requests) on both cards, which share one cache path: the
 * ETag with If-None-Match, and Last-Modified with If-Modified-Since, the ETag taking precedence.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startServer, type TestServer } from '../helpers/server.ts'

let server: TestServer
before(async () => {
  server = await startServer()
})
after(() => server.close())

const CARDS = {
  'A2A card': () => `${server.url}/agents/csv-analyst/.well-known/agent-card.json`,
  'Clawpedia card': () => `${server.url}/agents/csv-analyst/agent-card.json`,
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers })

/** An HTTP-date `seconds` away from `date`. */
const shifted = (date: string, seconds: number): string =>
  new Date(Date.parse(date) + seconds * 1000).toUTCString()

for (const [name, urlOf] of Object.entries(CARDS)) {
  describe(`${name} caching`, () => {
    it('sends the same Last-Modified on every request, no later than now', async () => {
      const first = await get(urlOf())
      const second = await get(urlOf())
      const lastModified = first.headers.get('last-modified')
      assert.ok(lastModified)
      assert.equal(second.headers.get('last-modified'), lastModified)
      assert.ok(Date.parse(lastModified) <= Date.now())
      assert.equal(new Date(Date.parse(lastModified)).toUTCString(), lastModified, 'an HTTP-date')
    })

    it('answers 304 to If-Modified-Since at or after Last-Modified, 200 before it', async () => {
      const lastModified = (await get(urlOf())).headers.get('last-modified')!
      for (const since of [lastModified, shifted(lastModified, 60)]) {
        const answer = await get(urlOf(), { 'if-modified-since': since })
        assert.equal(answer.status, 304, `If-Modified-Since ${since}`)
        assert.equal(await answer.text(), '')
        assert.equal(answer.headers.get('last-modified'), lastModified)
        assert.ok(answer.headers.get('etag'))
      }
      const older = await get(urlOf(), { 'if-modified-since': shifted(lastModified, -1) })
      assert.equal(older.status, 200)
      assert.ok(((await older.json()) as object) !== null)
    })

    it('ignores an If-Modified-Since that is not one HTTP-date', async () => {
      const lastModified = (await get(urlOf())).headers.get('last-modified')!
      for (const since of ['yesterday', `${lastModified}, ${lastModified}`, '']) {
        const answer = await get(urlOf(), { 'if-modified-since': since })
        assert.equal(answer.status, 200, JSON.stringify(since))
        await answer.arrayBuffer()
      }
    })

    it('lets If-None-Match decide when both are sent (RFC 9110 §13.2.2)', async () => {
      const first = await get(urlOf())
      const etag = first.headers.get('etag')!
      const lastModified = first.headers.get('last-modified')!
      await first.arrayBuffer()
      const changed = await get(urlOf(), { 'if-none-match': '"another"', 'if-modified-since': lastModified })
      assert.equal(changed.status, 200, 'a different ETag wins over a current date')
      await changed.arrayBuffer()
      const same = await get(urlOf(), {
        'if-none-match': etag,
        'if-modified-since': shifted(lastModified, -3600),
      })
      assert.equal(same.status, 304, 'a matching ETag wins over an old date')
    })
  })
}
