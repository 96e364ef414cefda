/**
 * A wildcard bind (`HOST=0.0.0.0`) advertises `http://localhost:…` in cards and links, which no other
 * machine can use: serve says so at start and points at --public-url; with one set it is quiet.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { spawnServer } from '../helpers/process.ts'
import { eventually } from '../helpers/server.ts'

const dir = mkdtempSync(join(tmpdir(), 'switchboard-wildcard-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const WARNING = /warning: listening on 0\.0\.0\.0 with no public URL.*--public-url/

const serve = (args: string[]) =>
  spawnServer(['--insecure-no-auth', '--data', dir, ...args], { HOST: '0.0.0.0' })

describe('serve on a wildcard address', () => {
  it('warns that cards advertise localhost and points at --public-url', async () => {
    const server = await serve([])
    try {
      // stderr and stdout are separate pipes: the warning may arrive after the banner.
      await eventually(async () => (WARNING.test(server.output()) ? true : undefined), 5000, 'the warning')
    } finally {
      await server.stop()
    }
  })

  it('says nothing when a public URL is set', async () => {
    const server = await serve(['--public-url', 'http://switchboard.example'])
    await server.stop()
    assert.doesNotMatch(server.output(), /warning: listening on/)
  })
})
