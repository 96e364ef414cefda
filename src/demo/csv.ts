/** A small RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF, a configurable delimiter. */
export const parseCsv = (text: string, delimiter = ','): string[][] => {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += c
    } else if (c === '"' && field === '') quoted = true
    else if (c === delimiter) {
      row.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      field = ''
      if (row.length > 1 || row[0] !== '') rows.push(row)
      row = []
    } else field += c
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

export interface ColumnStats {
  name: string
  type: 'numeric' | 'text' | 'empty'
  count: number
  missing: number
  distinct: number
  min?: number
  max?: number
  mean?: number
  median?: number
  stddev?: number
  top?: { value: string; count: number }[]
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6

/** Summary statistics per column: numeric columns get min/max/mean/median/stddev, text columns top values. */
export const describeColumns = (header: string[], rows: string[][]): ColumnStats[] =>
  header.map((name, index) => {
    const values = rows.map((r) => (r[index] ?? '').trim())
    const present = values.filter((v) => v !== '')
    const missing = values.length - present.length
    const distinct = new Set(present).size
    if (present.length === 0) return { name, type: 'empty', count: 0, missing, distinct: 0 }
    const numbers = present.map(Number)
    if (numbers.every((n) => Number.isFinite(n))) {
      const sorted = [...numbers].sort((a, b) => a - b)
      const mean = numbers.reduce((s, n) => s + n, 0) / numbers.length
      const middle = Math.floor(sorted.length / 2)
      const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
      const variance = numbers.reduce((s, n) => s + (n - mean) ** 2, 0) / numbers.length
      return {
        name,
        type: 'numeric',
        count: present.length,
        missing,
        distinct,
        min: sorted[0]!,
        max: sorted.at(-1)!,
        mean: round(mean),
        median: round(median),
        stddev: round(Math.sqrt(variance)),
      }
    }
    const counts = new Map<string, number>()
    for (const v of present) counts.set(v, (counts.get(v) ?? 0) + 1)
    const top = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5)
      .map(([value, count]) => ({ value, count }))
    return { name, type: 'text', count: present.length, missing, distinct, top }
  })

const escapeXml = (s: string): string =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)

/** A histogram (10 bins) of the first numeric column, or a bar chart of distinct counts, as SVG. */
export const chartSvg = (columns: ColumnStats[], rows: string[][], header: string[]): string => {
  const numeric = columns.find((c) => c.type === 'numeric')
  let title: string
  let bars: { label: string; value: number }[]
  if (numeric && numeric.min !== undefined && numeric.max !== undefined) {
    const index = header.indexOf(numeric.name)
    const values = rows
      .map((r) => Number((r[index] ?? '').trim()))
      .filter((v, i) => (rows[i]![index] ?? '').trim() !== '' && Number.isFinite(v))
    const bins = 10
    const width = (numeric.max - numeric.min) / bins || 1
    const counts = new Array<number>(bins).fill(0)
    for (const v of values) counts[Math.min(bins - 1, Math.floor((v - numeric.min) / width))]! += 1
    bars = counts.map((value, i) => ({ label: String(round(numeric.min! + i * width)), value }))
    title = `Distribution of ${numeric.name}`
  } else {
    bars = columns.map((c) => ({ label: c.name, value: c.distinct }))
    title = 'Distinct values per column'
  }
  const w = 640
  const h = 360
  const pad = 48
  const peak = Math.max(1, ...bars.map((b) => b.value))
  const slot = (w - pad * 2) / Math.max(1, bars.length)
  const rects = bars
    .map((b, i) => {
      const bh = ((h - pad * 2) * b.value) / peak
      const x = pad + i * slot + slot * 0.1
      const y = h - pad - bh
      return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.8).toFixed(1)}" height="${bh.toFixed(1)}" fill="#4c78a8"><title>${escapeXml(b.label)}: ${b.value}</title></rect><text x="${(x + slot * 0.4).toFixed(1)}" y="${h - pad + 16}" font-size="10" text-anchor="middle">${escapeXml(b.label.slice(0, 12))}</text>`
    })
    .join('')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><rect width="100%" height="100%" fill="white"/><text x="${w / 2}" y="24" font-size="16" text-anchor="middle" font-family="sans-serif">${escapeXml(title)}</text><line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="#333"/>${rects}</svg>\n`
}
