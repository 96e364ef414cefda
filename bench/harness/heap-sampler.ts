/**
 * Loaded into a benchmark server by `npm run bench -- --heap-profile` (node --import): samples what
 * it allocates, the objects the young and old collections freed included (a profile of live
 * objects alone shows what a server keeps, not what its collector has to work through), from
 * the time given until SIGTERM, and writes the sampling profile with the time sampling began.
 * With `promoted` (`--heap-profile --promoted`) it leaves out what the young collections freed:
 * what is left is what lived long enough to be moved to the old space, which only a full
 * collection frees, and the young collections' cost grows with it.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { monotonicUs } from '../client/procfs.ts'

/** `SWITCHBOARD_BENCH_HEAP_PROFILE`, set by the harness for the server it starts. */
export interface HeapSamplerSpec {
  file: string
  /** Sampling begins this long after the server starts loading: at about the end of its warm-up. */
  afterMs: number
  /**
   * Leave out what the young collections freed: what is left was promoted, is live at the end, or
   * was freed by a full collection, which empties the young generation too (a few MB each time).
   */
  promoted?: boolean
}

/** What the sampler writes: V8's sampling heap profile, and CLOCK_MONOTONIC µs when it began. */
export interface HeapSamples {
  startedUs: number
  profile: unknown
}

let began: () => void = () => {}
/** Resolves once sampling has begun (never, in a process the harness gave no instructions). */
export const sampling = new Promise<void>((resolve) => {
  began = resolve
})

const spec = process.env.SWITCHBOARD_BENCH_HEAP_PROFILE
if (spec) {
  const { file, afterMs, promoted = false } = JSON.parse(spec) as HeapSamplerSpec
  const session = new Session()
  session.connect()
  let startedUs: number | undefined
  setTimeout(() => {
    session.post(
      'HeapProfiler.startSampling',
      {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !promoted,
      },
      () => {
        startedUs = monotonicUs()
        began()
      },
    )
  }, afterMs).unref()
  // Ahead of the server's own SIGTERM handler, which closes it and exits.
  process.prependListener('SIGTERM', () => {
    const started = startedUs
    if (started === undefined) return
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) process.stderr.write(`heap sampling: ${error.message}\n`)
      else
        writeFileSync(
          file,
          JSON.stringify({ startedUs: started, profile: result.profile } satisfies HeapSamples),
        )
    })
  })
}
