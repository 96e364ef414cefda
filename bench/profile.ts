/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, the
 * heaviest of our own functions counting their callees, and the time per area (our folders,
 * packages, Node internals, GC). `windowUs` cuts the profile to the measured window.
 *
 *   npx tsx bench/profile.ts <file.cpuprofile> [startUs endUs]
 */
import { readFileSync } from 'node:fs'

export interface CallFrame {
  functionName: string
  url: string
  lineNumber: number
}

interface ProfileNode {
  id: number
  callFrame: CallFrame
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface Row {
  name: string
  where: string
  ms: number
  pct: number
}

export interface ProfileSummary {
  totalMs: number
  selfTop: Row[]
  ownInclusiveTop: Row[]
  areas: Row[]
}

const shortUrl = (url: string): string => {
  if (url === '') return ''
  const path = url.replace(/^file:\/\//, '')
  const modules = path.lastIndexOf('/node_modules/')
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length)
  const own = path.search(/\/(src|bench|dist)\//)
  return own >= 0 ? path.slice(own + 1) : path
}

/** Where a frame's time belongs, coarsely: a folder of ours, a package, Node, or the VM itself. */
export const areaOf = (frame: CallFrame): string => {
  const { url, functionName } = frame
  if (url === '') return functionName.startsWith('(') ? functionName : '(native: JSON, RegExp, Buffer…)'
  if (url.startsWith('node:')) {
    const parts = url.slice('node:'.length).split('/')
    return `node:${parts[0] === 'internal' ? parts.slice(0, 2).join('/') : parts[0]}`
  }
  const short = shortUrl(url)
  if (short.startsWith('src/') || short.startsWith('bench/')) return short.split('/').slice(0, 2).join('/')
  // The bench runs Switchboard built (harness/build.ts): dist/engine is src/engine compiled.
  if (short.startsWith('dist/')) return `src/${short.split('/')[1]}`
  const segments = short.split('/')
  return segments[0]!.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0]!
}

export const keyOf = (frame: CallFrame): string =>
  `${frame.functionName || '(anonymous)'}\u0000${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`

const isOwn = (frame: CallFrame): boolean =>
  /\/(src|dist)\//.test(frame.url) && !frame.url.includes('node_modules')

const top = (totals: Map<string, number>, all: number, limit: number): Row[] =>
  [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, us]) => {
      const [name, where] = key.split('\u0000') as [string, string]
      return { name, where: where ?? '', ms: us / 1000, pct: (us / all) * 100 }
    })

export const summarise = (profile: CpuProfile, window?: [number, number], limit = 25): ProfileSummary => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const areas = new Map<string, number>()
  let all = 0
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0
    if (window && (at < window[0] || at > window[1])) continue
    const node = byId.get(profile.samples[i]!)
    if (!node || node.callFrame.functionName === '(idle)') continue
    all += us
    const key = keyOf(node.callFrame)
    self.set(key, (self.get(key) ?? 0) + us)
    const area = areaOf(node.callFrame)
    areas.set(area, (areas.get(area) ?? 0) + us)
    const seen = new Set<string>()
    let cursor: ProfileNode | undefined = node
    for (let depth = 0; cursor && depth < 500; depth++) {
      if (isOwn(cursor.callFrame)) {
        const ownKey = keyOf(cursor.callFrame)
        if (!seen.has(ownKey)) {
          seen.add(ownKey)
          inclusive.set(ownKey, (inclusive.get(ownKey) ?? 0) + us)
        }
      }
      const up = parent.get(cursor.id)
      cursor = up === undefined ? undefined : byId.get(up)
    }
  }
  return {
    totalMs: all / 1000,
    selfTop: top(self, all, limit),
    ownInclusiveTop: top(inclusive, all, limit),
    areas: top(areas, all, limit),
  }
}

export const readProfile = (file: string): CpuProfile => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile

const table = (title: string, rows: Row[]): string =>
  [
    `| ${title} | where | ms | % |`,
    '| --- | --- | ---: | ---: |',
    ...rows.map((r) => `| ${r.name} | ${r.where} | ${r.ms.toFixed(0)} | ${r.pct.toFixed(1)} |`),
  ].join('\n')

export const renderSummary = (summary: ProfileSummary, limit = 25): string =>
  [
    `Busy time in the window: ${summary.totalMs.toFixed(0)} ms (idle excluded).`,
    '',
    table('area', summary.areas.slice(0, 15)),
    '',
    table('self time: function', summary.selfTop.slice(0, limit)),
    '',
    table('our function (with callees)', summary.ownInclusiveTop.slice(0, limit)),
  ].join('\n')

if (import.meta.filename === process.argv[1] && process.argv[2]) {
  const window =
    process.argv[3] && process.argv[4]
      ? ([Number(process.argv[3]), Number(process.argv[4])] as [number, number])
      : undefined
  process.stdout.write(`${renderSummary(summarise(readProfile(process.argv[2]), window))}\n`)
}
