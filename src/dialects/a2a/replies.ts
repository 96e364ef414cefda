import type { CallerSignal } from '../../engine/caller-signal.ts'
import type { Caller, Engine } from '../../engine/engine.ts'
import type { FollowedEvent, TaskFollower } from '../../engine/follow.ts'
import type { TaskWatch } from '../../engine/watch.ts'
import { INTERRUPTED_STATES, isTerminal, type TaskState } from '../../model/states.ts'
import type { Task } from '../../model/task.ts'
import { streamItemsOf, toA2aReply, toA2aTask } from './mapping.ts'
import { endsStream, liveStream, type StreamItems, updates } from './stream.ts'
import type { A2aTask, SendMessageResponse, StreamItem } from './wire/shapes.ts'

/**
 * Direct replies: an agent may answer a message with a Message instead of a Task (A2A §3.1). The
 * task is recorded all the same (it is the fold of its log, and Clawpedia shows it); what A2A
 * answers depends on what the task became — see `isDirectReply` — and, for the answers that cannot
 * wait for the end, on when the agent made up its mind: its first move.
 */

/** The handler's first move: any event but the WORKING that opens its run. */
const isFirstMove = ({ event }: FollowedEvent): boolean =>
  !(event.kind === 'status' && event.state === 'WORKING')

/** Terminal or interrupted: where a blocking SendMessage returns. */
const settled = (state: TaskState): boolean => isTerminal(state) || INTERRUPTED_STATES.has(state)

/** A message the engine accepted (a new task, or the answer to one), and what answering it needs. */
export interface AcceptedMessage {
  engine: Engine
  /** Whose reach the task is followed in. */
  actor: Caller
  /** The task as accepted: it is folded on in place while it is followed. */
  task: Task
  signal: CallerSignal
  /**
   * Hold the answer back until the handler's first move (a new task of an agent that declares
   * `directReplies`), so that a direct reply can be answered as its Message.
   */
  awaitFirstMove: boolean
  /** Opened on a new task before it was created: whoever follows it takes it over, else it is closed. */
  watch?: TaskWatch
}

/** The events after the accepted task's version. */
const follow = ({ engine, actor, task, signal, watch }: AcceptedMessage) =>
  engine.followTask(actor, task.id, { afterSeq: task.version, signal, known: task, ...(watch && { watch }) })

/**
 * SendMessage (A2A §3.1). Blocking: the task once settled. `returnImmediately`: the task as
 * accepted — or, awaiting the first move, as it stands at that move (when the caller goes away
 * first, as it stands then). A direct reply is answered as its Message either way.
 */
export const answerMessage = async (
  accepted: AcceptedMessage,
  { returnImmediately, view }: { returnImmediately: boolean; view: (task: Task) => A2aTask },
): Promise<SendMessageResponse> => {
  const { engine, actor, task, signal, watch } = accepted
  let answer = task
  if (!settled(task.state) && !returnImmediately)
    answer = await engine.waitFor(actor, task.id, settled, { signal, known: task, ...(watch && { watch }) })
  else if (!settled(task.state) && accepted.awaitFirstMove)
    answer = (await firstMove(await follow(accepted))) ?? task
  else watch?.close()
  const message = toA2aReply(answer)
  return message ? { message } : { task: view(answer) }
}

/** The task as it stood at the handler's first move, or undefined when the events end before one. */
const firstMove = async (events: AsyncIterable<FollowedEvent>): Promise<Task | undefined> => {
  for await (const followed of events) if (isFirstMove(followed)) return followed.task
  return undefined
}

/**
 * SendStreamingMessage (A2A §3.2): exactly one `message` for a direct reply, else the Task and its
 * updates until the task ends or waits for input. A task that already is a direct reply (the same
 * message again) is its message at once; awaiting the first move, the Task is held back until then.
 */
export const streamMessage = async (
  accepted: AcceptedMessage,
  { baseUrl, historyLength }: { baseUrl: string; historyLength: number | undefined },
): Promise<StreamItems> => {
  const { task: snapshot } = accepted
  const reply = toA2aReply(snapshot)
  if (reply || settled(snapshot.state)) accepted.watch?.close()
  if (reply) return only({ response: { message: reply } })
  const events = settled(snapshot.state) ? undefined : await follow(accepted)
  if (!accepted.awaitFirstMove || !events) return liveStream({ snapshot, events, baseUrl, historyLength })
  // Rendered now, before the events fold on into the snapshot, as liveStream does.
  const first: StreamItem = {
    id: snapshot.version,
    response: { task: toA2aTask(snapshot, { baseUrl, historyLength }) },
  }
  return heldBack(first, events, baseUrl)
}

async function* only(item: StreamItem): AsyncGenerator<StreamItem> {
  yield item
}

/**
 * The Task is held back, with the WORKING that opens the run, until the handler's first move. A
 * direct reply then replaces them all; anything else lets them out, and the stream goes on.
 */
async function* heldBack(
  first: StreamItem,
  events: TaskFollower,
  baseUrl: string,
): AsyncGenerator<StreamItem> {
  const waiting: StreamItem[] = []
  try {
    for (;;) {
      const next = await events.next()
      if (next.done) break
      const { event, task } = next.value
      const items = streamItemsOf(event, task, baseUrl)
      if (!isFirstMove(next.value)) {
        waiting.push(...items)
        continue
      }
      const reply = toA2aReply(task)
      if (reply) {
        yield { response: { message: reply } }
        return
      }
      yield first
      yield* waiting
      yield* items
      if (event.kind === 'status' && endsStream(event.state)) return
      yield* updates(events, baseUrl)
      return
    }
    // The events ended before the first move (the caller went away): what there was to say.
    yield first
    yield* waiting
  } finally {
    await events.return()
  }
}
