/**
 * server/log-lines.ts: the default logger's destination writes the lines of a turn together, whole
 * and in order, at the turn's end (an error line at once, all of them at exit), finishing what a
 * short write left and waiting out a full pipe, and a line it cannot write never fails the call
 * that logged it.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Logger } from 'pino'
import { logLines, type WriteSync } from '../../src/server/log-lines.ts'
import { createServerLogger } from '../../src/server/redaction.ts'

let dir: string
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-log-lines-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

const MESSAGES = ['plain', 'accents: é, ü, ß', 'euro € and an emoji 🚀', 'quotes "and" \\ backslashes']

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: fake`), { code })

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** A server logger on the default destination whose writes are kept, each as the text it was given. */
const recordedLogger = (): { writes: string[]; logger: Logger } => {
  const writes: string[] = []
  const writeSync: WriteSync = (_fd, data) => {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8')
    writes.push(text)
    return Buffer.byteLength(text)
  }
  const logger = createServerLogger({
    level: 'info',
    authenticators: [],
    destination: logLines({ fd: 99, writeSync }),
  })
  return { writes, logger }
}

const messagesOf = (text: string): string[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { msg: string }).msg)

/** Runs a module with the server logger at stdout and returns what reached stdout, and the exit code. */
const childLog = async (body: string): Promise<{ out: string; code: number }> => {
  const script = `
    import { createServerLogger } from ${JSON.stringify(new URL('../../src/server/redaction.ts', import.meta.url).pathname)}
    const logger = createServerLogger({ level: 'info', authenticators: [] })
    ${body}
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => {
    out += chunk
  })
  const [code] = (await once(child, 'exit')) as [number]
  return { out, code }
}

describe('the default log destination', () => {
  it('writes each line whole and in order to its file, at the end of the turn', async () => {
    const file = join(dir, 'lines.log')
    const fd = openSync(file, 'w')
    const logger = createServerLogger({ level: 'info', authenticators: [], destination: logLines({ fd }) })
    for (const message of MESSAGES) logger.info({ n: MESSAGES.indexOf(message) }, message)
    assert.equal(readFileSync(file, 'utf8'), '', 'nothing written before the turn ends')
    await nextTurn()
    closeSync(fd)
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    assert.deepEqual(
      lines.map((line) => JSON.parse(line) as { msg: string; n: number }).map(({ msg, n }) => [n, msg]),
      MESSAGES.map((message, n) => [n, message]),
    )
  })

  it("writes the lines of a turn in one write, and the next turn's in another", async () => {
    const { writes, logger } = recordedLogger()
    logger.info('one')
    logger.info('two')
    logger.warn('three')
    assert.equal(writes.length, 0)
    await nextTurn()
    logger.info('four')
    await nextTurn()
    assert.deepEqual(writes.map(messagesOf), [['one', 'two', 'three'], ['four']])
  })

  it('writes an error line before its call returns, after the lines gathered before it', async () => {
    const { writes, logger } = recordedLogger()
    logger.info('before')
    logger.error('failed')
    assert.deepEqual(writes.map(messagesOf), [['before', 'failed']])
    logger.info('after')
    logger.fatal('fatal')
    assert.deepEqual(writes.map(messagesOf), [
      ['before', 'failed'],
      ['after', 'fatal'],
    ])
    logger.info('later')
    await nextTurn()
    assert.deepEqual(writes.map(messagesOf).at(-1), ['later'])
  })

  it('writes at once what a turn gathers past 64 KiB', () => {
    const { writes, logger } = recordedLogger()
    const filler = 'x'.repeat(1000)
    for (let n = 0; n < 70; n++) logger.info({ filler }, `line ${n}`)
    assert.equal(writes.length, 1, 'one write, in the turn')
    const written = messagesOf(writes[0]!)
    assert.ok(written.length >= 60 && written.length < 70, `${written.length} lines in it`)
    assert.deepEqual(
      written,
      written.map((_, n) => `line ${n}`),
    )
  })

  it('writes what is gathered when the process exits, by exit() or an uncaught exception', async () => {
    const exited = await childLog(`logger.info('gathered'); logger.info('then exit'); process.exit(3)`)
    assert.equal(exited.code, 3)
    assert.deepEqual(messagesOf(exited.out), ['gathered', 'then exit'])
    const thrown = await childLog(`logger.info('gathered'); throw new Error('boom')`)
    assert.equal(thrown.code, 1)
    assert.deepEqual(messagesOf(thrown.out), ['gathered'])
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
    destination.flush()
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
      await nextTurn()
      logger.info('second')
      await nextTurn()
      await warned
      // Warnings are emitted on the next tick: the second turn's would have come with the first.
      await nextTurn()
      assert.equal(calls, 2, "each turn's lines were tried")
      assert.equal(warnings.length, 1)
      assert.match(warnings[0]!.message, /file descriptor 99 .*dropped: EPIPE/)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('is standard output when the server logger is given none', async () => {
    const { out, code } = await childLog(`logger.info({ n: 1 }, 'to stdout')`)
    assert.equal(code, 0)
    const line = JSON.parse(out) as { msg: string; n: number }
    assert.deepEqual([line.msg, line.n], ['to stdout', 1])
  })
})
