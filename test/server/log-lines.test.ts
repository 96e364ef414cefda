/**
 * server/log-lines.ts: the default logger's destination writes every line whole and in order,
 * finishing what a short write left and waiting out a full pipe, and a line it cannot write never
 * fails the call that logged it.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { logLines, type WriteSync } from '../../src/server/log-lines.ts'
import { createServerLogger } from '../../src/server/redaction.ts'

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-log-lines-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

const MESSAGES = ['plain', 'accents: é, ü, ß', 'euro € and an emoji 🚀', 'quotes "and" \\ backslashes']

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: fake`), { code })

describe('the default log destination', () => {
  it('writes each line whole and in order to its file', () => {
    const file = join(dir, 'lines.log')
    const fd = openSync(file, 'w')
    const logger = createServerLogger({ level: 'info', authenticators: [], destination: logLines({ fd }) })
    for (const message of MESSAGES) logger.info({ n: MESSAGES.indexOf(message) }, message)
    closeSync(fd)
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    assert.deepEqual(
      lines.map((line) => JSON.parse(line) as { msg: string; n: number }).map(({ msg, n }) => [n, msg]),
      MESSAGES.map((message, n) => [n, message]),
    )
  })

  it('finishes a short write and waits out a full pipe, byte for byte', () => {
    const received: Buffer[] = []
    let calls = 0
    let full = 0
    // A pipe that takes at most 5 bytes a call and is full on every third call.
    const shortWrites: WriteSync = (_fd, data, offset = 0) => {
      calls += 1
      if (calls % 3 === 0) {
        full += 1
        throw errno('EAGAIN')
      }
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data).subarray(offset)
      const taken = bytes.subarray(0, 5)
      received.push(Buffer.from(taken))
      return taken.length
    }
    const destination = logLines({ fd: 99, writeSync: shortWrites })
    const lines = MESSAGES.map((message) => `${JSON.stringify({ msg: message })}\n`)
    for (const line of lines) destination.write(line)
    assert.equal(Buffer.concat(received).toString('utf8'), lines.join(''))
    const bytes = Buffer.byteLength(lines.join(''))
    assert.ok(calls >= Math.ceil(bytes / 5), `${calls} calls for ${bytes} bytes: written in pieces`)
    assert.ok(full > 0, 'and some found the pipe full')
  })

  it('drops a line it cannot write, warns once, and never throws into the caller', async () => {
    let calls = 0
    const broken: WriteSync = () => {
      calls += 1
      throw errno('EPIPE')
    }
    const warnings: Error[] = []
    const onWarning = (warning: Error): void => {
      if (warning.name === 'SwitchboardLogWarning') warnings.push(warning)
    }
    process.on('warning', onWarning)
    try {
      const logger = createServerLogger({
        level: 'info',
        authenticators: [],
        destination: logLines({ fd: 99, writeSync: broken }),
      })
      const warned = once(process, 'warning')
      logger.info('first')
      logger.info('second')
      await warned
      // Warnings are emitted on the next tick: the second line's would have come with the first.
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(calls, 2, 'each line was tried')
      assert.equal(warnings.length, 1)
      assert.match(warnings[0]!.message, /file descriptor 99 .*dropped: EPIPE/)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('is standard output when the server logger is given none', async () => {
    const script = `
      import { createServerLogger } from ${JSON.stringify(new URL('../../src/server/redaction.ts', import.meta.url).pathname)}
      createServerLogger({ level: 'info', authenticators: [] }).info({ n: 1 }, 'to stdout')
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
    const line = JSON.parse(out) as { msg: string; n: number }
    assert.deepEqual([line.msg, line.n], ['to stdout', 1])
  })
})
