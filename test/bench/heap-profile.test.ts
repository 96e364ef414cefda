import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { summariseHeap } from '../../bench/harness/heap-profile-run.ts'
import type { HeapSamplerSpec, HeapSamples } from '../../bench/harness/heap-sampler.ts'

const SAMPLER = new URL('../../bench/harness/heap-sampler.ts', import.meta.url).pathname

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: Node[]
}

const subtree = (node: Node): number => node.selfSize + node.children.reduce((sum, c) => sum + subtree(c), 0)
/** What `name` allocated, with what it called (String.prototype.repeat's bytes are the builtin's). */
const bytesUnder = (node: Node, name: string): number =>
  node.callFrame.functionName === name
    ? subtree(node)
    : node.children.reduce((sum, child) => sum + bytesUnder(child, name), 0)

describe('the allocation profile (--heap-profile)', () => {
  /** Runs `script` in a child under the sampler (as the harness runs a server); its profile's tree. */
  const sampled = async (
    script: string,
    spec: Pick<HeapSamplerSpec, 'promoted'> = {},
  ): Promise<{ head: Node; startedUs: number }> => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-heap-'))
    const file = join(dir, 'samples.json')
    try {
      const child = spawn(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', '--import', SAMPLER, '--input-type=module', '-e', script],
        {
          env: {
            ...process.env,
            SWITCHBOARD_BENCH_HEAP_PROFILE: JSON.stringify({ file, afterMs: 0, ...spec }),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      )
      const code = await new Promise((resolve) => child.once('exit', resolve))
      assert.equal(code, 0)
      const samples = JSON.parse(readFileSync(file, 'utf8')) as HeapSamples
      return { head: (samples.profile as { head: Node }).head, startedUs: samples.startedUs }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  // 8 MB of strings kept until the end, then 40 MB no one keeps; kept alive until the signal
  // arrives, as a server is, then it exits as the bench server does. The young collection at the
  // end frees what the last one left: a server's profile holds that tail too, a few MB in the
  // gigabytes a window allocates, but here it would be most of the garbage. Alive from the start,
  // as a listening server is: the sampler's timer alone does not keep the process up, and one that
  // ends before the timer fires never settles its top-level await (exit code 13).
  const keptAndGarbage = `
    setInterval(() => {}, 1 << 30)
    const { sampling } = await import(${JSON.stringify(SAMPLER)})
    await sampling
    const kept = []
    function keepSome() { for (let i = 0; i < 8_000; i++) kept.push('y'.repeat(1000) + i) }
    function makeGarbage() { let n = 0; for (let i = 0; i < 40_000; i++) n += ('x'.repeat(1000) + i).length; return n }
    keepSome()
    makeGarbage()
    gc({ type: 'minor' })
    setInterval(() => kept.length, 1 << 30)
    process.on('SIGTERM', () => setImmediate(() => process.exit(0)))
    process.kill(process.pid, 'SIGTERM')`

  it('samples what was allocated and already collected, from when it begins to SIGTERM', async () => {
    const { head, startedUs } = await sampled(keptAndGarbage)
    assert.ok(startedUs > 0)
    const garbage = bytesUnder(head, 'makeGarbage')
    // About half is sampled here; a profile of what is still live at the end would hold none of it.
    assert.ok(garbage > 4e6, `sampled ${garbage} bytes of the 40 MB`)
  })

  it('with --promoted, samples only what outlived the young collections', async () => {
    const { head } = await sampled(keptAndGarbage, { promoted: true })
    const kept = bytesUnder(head, 'keepSome')
    const garbage = bytesUnder(head, 'makeGarbage')
    // The kept strings outlive every young collection; the garbage dies in the first that finds it.
    assert.ok(kept > 2e6, `sampled ${kept} bytes of the 8 MB kept`)
    // (Allocated, the garbage is five times the kept; the odd string alive at a collection stays.)
    assert.ok(garbage < kept / 3, `sampled ${garbage} bytes of garbage against ${kept} kept`)
  })

  it('files each allocation under its area and its function, per operation', () => {
    const node = (functionName: string, url: string, selfSize: number, children: Node[] = []): Node => ({
      callFrame: { functionName, url, lineNumber: 4 },
      selfSize,
      children,
    })
    const profile = {
      head: node('(root)', '', 0, [
        node('serveStream', 'file:///w/switchboard/dist/dialects/a2a/stream.js', 6000, [
          node('write', 'file:///w/switchboard/node_modules/pino/lib/proto.js', 1500),
        ]),
        node('appendFolded', 'file:///w/switchboard/dist/store/sqlite/task-writes.js', 2500),
      ]),
    }
    const summary = summariseHeap(profile, 10)
    assert.equal(summary.sampledBytes, 10_000)
    assert.deepEqual(
      summary.areas.map((row) => [row.name, row.bytesPerOp, row.pct]),
      [
        ['src/dialects', 600, 60],
        ['src/store', 250, 25],
        ['pino', 150, 15],
      ],
    )
    assert.deepEqual(summary.selfTop[0], {
      name: 'serveStream dist/dialects/a2a/stream.js:5',
      bytesPerOp: 600,
      pct: 60,
    })
  })
})
