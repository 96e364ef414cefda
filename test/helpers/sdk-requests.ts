/** Requests and readers for tests that drive our server with the @a2a-js/sdk 1.3 client, on any binding. */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { type Artifact, SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'

export type Part = { text: string } | { data: unknown }

/** A SendMessageRequest of a user message with these parts. */
export const request = (
  parts: Part[],
  extra: { taskId?: string; contextId?: string; configuration?: object; messageId?: string } = {},
): SendMessageRequest =>
  SendMessageRequest.fromJSON({
    message: {
      messageId: extra.messageId ?? randomUUID(),
      role: 'ROLE_USER',
      parts,
      ...(extra.taskId && { taskId: extra.taskId }),
      ...(extra.contextId && { contextId: extra.contextId }),
    },
    ...(extra.configuration && { configuration: extra.configuration }),
  })

export const asTask = (result: Awaited<ReturnType<Client['sendMessage']>>): Task => {
  assert.ok('status' in result, 'SendMessage answered with a Task')
  return result
}

/** The value of an artifact's single data part. */
export const dataOf = (artifact: Artifact | undefined): unknown => {
  const content = artifact?.parts[0]?.content
  if (content?.$case !== 'data') return assert.fail(`not a data artifact: ${JSON.stringify(artifact)}`)
  return content.value
}

/** Every item of a stream, read to its end. */
export const collect = async (stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> => {
  const events: StreamResponse[] = []
  for await (const event of stream) events.push(event)
  return events
}
