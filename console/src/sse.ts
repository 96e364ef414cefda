export interface SseFrame {
  event: string
  data: string
  id?: string
}

/**
 * Server-sent events read from a fetch body (EventSource cannot send the Authorization header):
 * the HTML standard's parsing, reduced to what our streams send (event, data, id; comments skipped).
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  let id: string | undefined
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    for (;;) {
      const match = /\r\n|\n|\r/.exec(buffer)
      // A lone CR at the end may be the first half of a CRLF: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) break
      const line = buffer.slice(0, match.index)
      buffer = buffer.slice(match.index + match[0].length)
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), ...(id && { id }) }
        event = ''
        data = []
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') event = text
      else if (field === 'data') data.push(text)
      else if (field === 'id') id = text
    }
  }
}
