/**
 * The A2A-Extensions service parameter (spec §3.2.6, an HTTP header on both bindings): the
 * extension URIs a client activates for one request, and, in a response, the ones the agent
 * activated. Shared by the server (which reads it and echoes it) and the client (which sends it
 * and reads the echo).
 */
export const EXTENSIONS_HEADER = 'A2A-Extensions'

/**
 * The URIs of an A2A-Extensions value: comma-separated (the spec's SHOULD), also across several
 * header lines; blanks are dropped and each URI counted once, in the order first given.
 */
export const parseExtensions = (value: string | readonly string[] | null | undefined): string[] => {
  if (value === null || value === undefined) return []
  const lines = typeof value === 'string' ? [value] : value
  const uris = new Set<string>()
  for (const line of lines) {
    for (const uri of line.split(',')) {
      const trimmed = uri.trim()
      if (trimmed !== '') uris.add(trimmed)
    }
  }
  return [...uris]
}

/** One header value for a list of URIs. */
export const formatExtensions = (uris: readonly string[]): string => uris.join(',')
