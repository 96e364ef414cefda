import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { consoleFlags } from '../../src/cli/serve-flags/console.ts'
import { CONSOLE_CSP, CONSOLE_DIST } from '../../src/server/console.ts'
import { instantAgent } from '../helpers/agents.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

/** The hashed script and stylesheet the built page names. */
const assetsOfPage = (): string[] =>
  [
    ...readFileSync(join(CONSOLE_DIST, 'index.html'), 'utf8').matchAll(
      /(?:src|href)="\/console\/(assets\/[^"]+)"/g,
    ),
  ].map((m) => m[1]!)

const assertHardened = (response: Response) => {
  assert.equal(response.headers.get('content-security-policy'), CONSOLE_CSP)
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff')
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer')
}

describe('/console: the built console, served as public static files', () => {
  let server: TestServer
  before(async () => {
    // With API keys on: the console's files stay public, its data calls are what need the key.
    server = await startServer({ agents: [instantAgent], identity: { apiKeys: {} } })
  })
  after(() => server.close())

  it('serves the page at /console, /console/ and at any client-side route, with the CSP', async () => {
    for (const path of [
      '/console',
      '/console/',
      '/console/tasks',
      '/console/tasks/instant/1b4e28ba-2fa1-11d2-883f-0016d3cca427',
    ]) {
      const response = await fetch(`${server.url}${path}`)
      assert.equal(response.status, 200, path)
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8', path)
      assert.equal(response.headers.get('cache-control'), 'no-cache', path)
      assertHardened(response)
      assert.match(await response.text(), /<div id="app"><\/div>/)
    }
  })

  it('serves each asset the page names, with its content type, cached for good', async () => {
    const assets = assetsOfPage()
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join())
    for (const asset of assets) {
      const response = await fetch(`${server.url}/console/${asset}`)
      assert.equal(response.status, 200, asset)
      assert.equal(
        response.headers.get('content-type'),
        asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      )
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable')
      assertHardened(response)
      assert.equal(await response.text(), readFileSync(join(CONSOLE_DIST, asset), 'utf8'))
    }
  })

  it('answers 404 to a missing asset rather than the page, and never reads outside the build', async () => {
    const missing = await fetch(`${server.url}/console/assets/nothing-here.js`)
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('x-content-type-options'), 'nosniff')
    for (const path of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/%2e%2e%2f%2e%2e%2fpackage.json',
      '/console/assets/..%2f..%2f..%2fpackage.json',
      '/console/..%5c..%5cpackage.json',
      '/console/%2fetc%2fpasswd',
    ]) {
      const response = await fetch(`${server.url}${path}`)
      const text = await response.text()
      assert.doesNotMatch(text, /"name": "switchboard"|root:x:0/, path)
      // The app's page (a client-side route), a 404, or (when the client resolved the dots itself
      // and left /console) the agent's 401: never a file.
      assert.ok(
        [401, 404].includes(response.status) || (response.status === 200 && text.includes('<div id="app">')),
        `${path}: ${response.status}`,
      )
    }
  })

  it('keeps the data behind authentication: the page is public, the APIs it calls are not', async () => {
    const page = await fetch(`${server.url}/console`)
    assert.equal(page.status, 200)
    const data = await fetch(`${server.url}/agents/instant/tasks/1b4e28ba-2fa1-11d2-883f-0016d3cca427`)
    assert.equal(data.status, 401)
  })
})

describe('/console turned off (--console off, console: false)', () => {
  let server: TestServer
  before(async () => {
    server = await startServer({ agents: [instantAgent], console: false })
  })
  after(() => server.close())

  it('answers 404 on the page, its routes and its assets', async () => {
    for (const path of ['/console', '/console/tasks', `/console/${assetsOfPage()[0]}`]) {
      const response = await fetch(`${server.url}${path}`)
      assert.equal(response.status, 404, path)
      assert.doesNotMatch(await response.text(), /<div id="app">/)
    }
  })
})

describe('--console', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    consoleFlags.resolve({ flags, env, file })

  it('is on unless turned off by the flag, SWITCHBOARD_CONSOLE or the config file, in that order', () => {
    assert.deepEqual(resolve({}, {}, {}), {})
    assert.deepEqual(resolve({ console: 'off' }, { SWITCHBOARD_CONSOLE: 'on' }, {}), { console: false })
    assert.deepEqual(resolve({}, { SWITCHBOARD_CONSOLE: 'off' }, { console: true }), { console: false })
    assert.deepEqual(resolve({}, {}, { console: false }), { console: false })
    assert.throws(() => resolve({ console: 'maybe' }, {}, {}), /--console must be on or off/)
  })
})
