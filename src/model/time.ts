/** ISO 8601, UTC, millisecond precision: the one timestamp format both protocols require. */
export const nowIso = (): string => new Date().toISOString()
