/**
 * `switchboard serve` that cannot start: it exits with the status of the failure's class
 * (docs/cli.md) and a message naming the path and the cause, and serves nothing. Every case here
 * fails for root too (CI runs as root, where file modes do not stop writes).
 */
import assert from 'node:assert/strict'
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { request, startServer } from '../helpers/server.ts'
import { cli } from './helpers.ts'

const root = mkdtempSync(join(tmpdir(), 'switchboard-startup-'))
after(() => rmSync(root, { recursive: true, force: true }))

/** `serve` on a free port with the given data directory; it must end by itself. */
const serve = (dataDir: string) => cli(['serve', '--port', '0', '--data', dataDir])

const assertDidNotServe = (result: { stdout: string }) =>
  assert.doesNotMatch(result.stdout, /listening/i, 'no banner: the server never listened')

describe('serve: start-up failures', () => {
  it('a corrupt database exits 10 naming the file and what to do, and never listens', async () => {
    const dataDir = join(root, 'corrupt')
    const server = await startServer({ dataDir })
    for (let i = 0; i < 100; i++) {
      const created = await request(`${server.url}/agents/long-runner/tasks`, {
        method: 'POST',
        body: { input: { steps: 1 } },
      })
      assert.equal(created.status, 202)
    }
    await server.close()
    const file = join(dataDir, 'switchboard.db')
    const { size } = statSync(file)
    // Garbage over a page in the middle of the file: a b-tree page of the tasks or their events.
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, Math.floor(size / 2 / 4096) * 4096)
    closeSync(fd)

    const result = await serve(dataDir)
    assert.equal(result.code, 10, result.stderr)
    assert.match(result.stderr, new RegExp(`the database ${file} is corrupt .*restore it from a backup`))
    assertDidNotServe(result)
  })

  it('a data directory under a regular file exits 8 with the path and the cause', async () => {
    const file = join(root, 'a-file')
    writeFileSync(file, 'not a directory')
    for (const dataDir of [join(file, 'data'), file]) {
      const result = await serve(dataDir)
      assert.equal(result.code, 8, result.stderr)
      assert.match(result.stderr, new RegExp(`cannot use the data directory ${dataDir}: .*not a directory`))
      assertDidNotServe(result)
    }
  })

  it('a data directory where none can be made (/proc) exits 8, not ENOENT … mkdir nor a hang', async () => {
    const result = await serve('/proc/switchboard-test/data')
    assert.equal(result.code, 8, result.stderr)
    assert.match(
      result.stderr,
      /cannot use the data directory \/proc\/switchboard-test\/data: .*cannot be created/,
    )
    assertDidNotServe(result)
  })

  it('a database file that cannot be opened exits 9 with its path', async () => {
    const dataDir = join(root, 'unopenable')
    // A directory where the database file should be: SQLite cannot open it, whoever runs it.
    mkdirSync(join(dataDir, 'switchboard.db'), { recursive: true })
    const result = await serve(dataDir)
    assert.equal(result.code, 9, result.stderr)
    assert.match(result.stderr, new RegExp(`cannot open the database ${join(dataDir, 'switchboard.db')}: `))
    assertDidNotServe(result)
  })

  it('bad configuration still exits 2', async () => {
    const result = await cli(['serve', '--port', 'abc'])
    assert.equal(result.code, 2, result.stderr)
    assert.match(result.stderr, /invalid port "abc"/)
  })
})
