/** One sample of the Prometheus text exposition format (0.0.4). */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  samples: Sample[]
  /** `# TYPE` per metric family. */
  types: Map<string, string>
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y

const unescapeLabel = (value: string): string =>
  value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex
    const match = LABEL.exec(text)
    if (!match || match.index !== start) throw new Error(`bad labels in: ${line}`)
    labels[match[1]!] = unescapeLabel(match[2]!)
  }
  return labels
}

/** Parses the text format strictly: a line that is neither a comment nor a sample is an error. */
export const parseExposition = (text: string): Exposition => {
  const samples: Sample[] = []
  const types = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line)
      if (type) types.set(type[1]!, type[2]!)
      continue
    }
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a sample: ${line}`)
    const value = match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3])
    if (Number.isNaN(value) && match[3] !== 'NaN') throw new Error(`bad value: ${line}`)
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? '', line), value })
  }
  return { samples, types }
}

/** The value of the one sample with this name whose labels include `labels`; 0 when none (an unset counter). */
export const sampleValue = (
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number => {
  const found = exposition.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value ?? 0
}

/** The sum over every sample with this name whose labels include `labels`. */
export const sampleSum = (
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number =>
  exposition.samples
    .filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((total, sample) => total + sample.value, 0)
