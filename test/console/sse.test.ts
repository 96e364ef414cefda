import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readSse, type SseFrame } from '../../console/src/sse.ts'

/** A body delivered in exactly these chunks, as a network might split it. */
const bodyOf = (chunks: string[]): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
}

const framesOf = async (chunks: string[]): Promise<SseFrame[]> => {
  const frames: SseFrame[] = []
  for await (const frame of readSse(bodyOf(chunks))) frames.push(frame)
  return frames
}

describe("the console's SSE reader (fetch bodies: EventSource cannot send Authorization)", () => {
  it('reads event, id and multi-line data, skips comments, and keeps the last id', async () => {
    const frames = await framesOf([
      ': a comment\n',
      'id: 1\nevent: status\ndata: {"a":1}\n\n',
      'event: log\ndata: line one\ndata: line two\n\n',
      'data: no event name\n\n',
    ])
    assert.deepEqual(frames, [
      { id: '1', event: 'status', data: '{"a":1}' },
      { id: '1', event: 'log', data: 'line one\nline two' },
      { id: '1', event: 'message', data: 'no event name' },
    ])
  })

  it('joins frames split anywhere, a CRLF split between chunks and a multi-byte character included', async () => {
    const text = 'id: 7\r\nevent: log\r\ndata: café ✓\r\n\r\n'
    const bytes = new TextEncoder().encode(text)
    const encoder = new TextDecoder()
    // Every split point of the bytes, as two chunks: the middle of "é", of "✓", of a CRLF.
    for (let cut = 1; cut < bytes.length; cut++) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, cut))
          controller.enqueue(bytes.slice(cut))
          controller.close()
        },
      })
      const frames: SseFrame[] = []
      for await (const frame of readSse(body)) frames.push(frame)
      assert.deepEqual(
        frames,
        [{ id: '7', event: 'log', data: 'café ✓' }],
        `cut at ${cut}: ${encoder.decode(bytes.slice(0, cut))}`,
      )
    }
  })

  it('drops a frame the stream ended in the middle of', async () => {
    assert.deepEqual(await framesOf(['event: status\ndata: {"a":1}\n\nevent: log\ndata: cut']), [
      { event: 'status', data: '{"a":1}' },
    ])
  })
})
