/**
 * ISO 8601, UTC, millisecond precision: the one timestamp format both protocols require. Every
 * event and artifact is stamped, several per millisecond under load, and toISOString costs more
 * than the rest of a stamp: the string of the current millisecond is kept.
 */
export const nowIso = (): string => {
  const ms = Date.now()
  if (ms !== lastMs) {
    lastMs = ms
    lastIso = new Date(ms).toISOString()
  }
  return lastIso
}

let lastMs = Number.NaN
let lastIso = ''
