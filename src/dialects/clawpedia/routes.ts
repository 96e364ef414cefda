import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../../engine/engine.ts'
import type { FollowedEvent } from '../../engine/follow.ts'
import { contentTypeOf } from '../../model/artifacts.ts'
import { isSwitchboardError, SwitchboardError } from '../../model/errors.ts'
import { jsonText } from '../../model/json.ts'
import type { Task } from '../../model/task.ts'
import { nowIso } from '../../model/time.ts'
import { attachment, bodyCheck, uuidParam } from '../../web/body.ts'
import { callerOf, PUBLIC_ROUTE, readerOf, writerOf } from '../../web/caller.ts'
import { sendCard } from '../../web/card-cache.ts'
import type { AgentMount, ServerContext } from '../../web/context.ts'
import { errorBodyHandler } from '../../web/errors.ts'
import { disconnectSignal, lastEventId, pipeFrames, type SseFrame, SseStream } from '../../web/sse.ts'
import { toClawpediaArtifact, toClawpediaCard, toClawpediaFrame, toClawpediaTask } from './mapping.ts'
import { CREATE_TASK_BODY, PROVIDE_INPUT_BODY } from './wire/shapes.ts'

interface TaskParams {
  taskId: string
}

const checkCreate = bodyCheck<{ input: Record<string, unknown> }>(CREATE_TASK_BODY)
const checkInput = bodyCheck<{ input: Record<string, unknown> }>(PROVIDE_INPUT_BODY)

/** The Clawpedia task protocol for one mounted agent: cards, tasks, artifacts, the SSE stream. */
export const clawpediaRoutes = async (
  app: FastifyInstance,
  options: { mount: AgentMount; server: ServerContext },
) => {
  const { mount, server } = options
  const { engine } = server
  const { definition } = mount.agent
  const reader = (request: FastifyRequest): Caller => readerOf(request, definition.slug)
  const writer = (request: FastifyRequest): Caller => writerOf(request, definition.slug)
  const wireTask = (task: Task) => toClawpediaTask(task, definition.id)
  const contentUrl = (artifactId: string) => `${mount.baseUrl()}/artifacts/${artifactId}/content`

  app.setErrorHandler(errorBodyHandler(server.logger))

  // An agent that requires an A2A extension takes messages only from requests that activate it,
  // which this protocol cannot express: its work is refused here rather than run without it.
  const required = (definition.extensions ?? []).filter((e) => e.required).map((e) => e.uri)
  const assertNoRequiredExtension = (): void => {
    if (required.length === 0) return
    throw new SwitchboardError(
      'EXTENSION_SUPPORT_REQUIRED',
      `this agent requires the A2A extension${required.length > 1 ? 's' : ''} ${required.join(', ')}, which only its A2A interfaces can activate (the A2A-Extensions header)`,
      { requiredExtensions: required.join(',') },
    )
  }

  app.get('/agent-card.json', PUBLIC_ROUTE, (request, reply) =>
    sendCard(request, reply, toClawpediaCard(definition), server.startedAt),
  )

  app.post('/tasks', async (request, reply) => {
    assertNoRequiredExtension()
    const body = checkCreate(request.body)
    const key = request.headers['idempotency-key']
    // The same key again with the same input (to this agent) is a retry; with another, a mistake.
    const { task } = await engine
      .submit({
        caller: callerOf(request),
        agent: definition.slug,
        input: body.input,
        ...(typeof key === 'string' &&
          key !== '' && { idempotency: { key: `clawpedia:${key}`, request: { input: body.input } } }),
      })
      .catch((error: unknown) => {
        if (!isSwitchboardError(error) || error.code !== 'IDEMPOTENCY_CONFLICT') throw error
        throw new SwitchboardError(
          'IDEMPOTENCY_CONFLICT',
          `Idempotency-Key ${JSON.stringify(key)} was already used by this caller for a different request (another input, or another agent); a new request needs a new key`,
        )
      })
    return reply.code(202).send(wireTask(task))
  })

  app.get<{ Params: TaskParams }>('/tasks/:taskId', async (request) =>
    wireTask(await engine.getTask(reader(request), uuidParam(request.params.taskId, 'task_id'))),
  )

  app.post<{ Params: TaskParams }>('/tasks/:taskId/cancel', async (request, reply) => {
    const task = await engine.cancel(writer(request), uuidParam(request.params.taskId, 'task_id'))
    return reply.code(202).send(wireTask(task))
  })

  // Our extension: the reference defines INPUT_REQUIRED but no way to answer it.
  app.post<{ Params: TaskParams }>('/tasks/:taskId/input', async (request, reply) => {
    assertNoRequiredExtension()
    const taskId = uuidParam(request.params.taskId, 'task_id')
    const body = checkInput(request.body)
    const task = await engine.provideInput({ scope: writer(request), taskId, input: body.input })
    return reply.code(202).send(wireTask(task))
  })

  app.get<{ Params: TaskParams }>('/tasks/:taskId/artifacts', async (request) => {
    const task = await engine.getTask(reader(request), uuidParam(request.params.taskId, 'task_id'))
    return { artifacts: task.artifacts.map((a) => toClawpediaArtifact(a, contentUrl(a.id))) }
  })

  app.get<{ Params: { artifactId: string } }>('/artifacts/:artifactId/content', async (request, reply) => {
    const { artifact, bytes } = await engine.getArtifact(
      reader(request),
      uuidParam(request.params.artifactId, 'artifact_id'),
    )
    reply.header('content-type', contentTypeOf(artifact)).header('x-content-type-options', 'nosniff')
    switch (artifact.type) {
      case 'file':
        return reply
          .header('content-disposition', attachment(artifact.filename))
          .send(Buffer.from(bytes ?? new Uint8Array()))
      case 'json':
        return reply.send(JSON.stringify(artifact.value))
      case 'url':
        return reply.send(`${artifact.url}\r\n`)
      case 'text':
      case 'log':
        return reply.send(artifact.text)
    }
  })

  app.get<{ Params: TaskParams }>('/tasks/:taskId/stream', async (request, reply) => {
    const taskId = uuidParam(request.params.taskId, 'task_id')
    const resumeAfter = lastEventId(request) ?? 0
    const signal = disconnectSignal(reply.raw)
    // Without Last-Event-ID the stream replays from the first event; each `status` frame carries
    // the task as it was at that event.
    const events = await engine.followTask(reader(request), taskId, { afterSeq: resumeAfter, signal })
    reply.hijack()
    let cursor = resumeAfter
    const stream = new SseStream(reply.raw, server.heartbeats, () => ({
      id: cursor,
      event: 'ping',
      data: jsonText({ timestamp: nowIso() }),
    }))
    stream.open()
    await pipeFrames(
      stream,
      framesOf(events, definition.id, (seq) => {
        cursor = seq
      }),
      server.stallMs,
    )
  })

  app.setNotFoundHandler((request, reply: FastifyReply) =>
    reply
      .code(404)
      .send({ error: { code: 'METHOD_NOT_FOUND', message: `no route ${request.method} ${request.url}` } }),
  )
}

async function* framesOf(
  events: AsyncIterable<FollowedEvent>,
  agentId: string,
  sent: (seq: number) => void,
): AsyncGenerator<SseFrame> {
  for await (const { event, task } of events) {
    const frame = toClawpediaFrame(event, task, agentId)
    sent(event.seq)
    if (frame) yield { id: event.seq, event: frame.event, data: jsonText(frame.data) }
  }
}
