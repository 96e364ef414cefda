/**
 * Streamed artifacts on the Clawpedia stream: `artifact.update` frames carrying the artifact (its
 * opening) and then each piece (`append`, `content`, `last_chunk`), each with its own id; the
 * artifact list and the content endpoint show the text so far; Last-Event-ID resumes mid-artifact.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { ClawpediaArtifactUpdate } from '../../src/dialects/clawpedia/wire/shapes.ts'
import { compileSchema } from '../../src/schema/json-schema.ts'
import { hold, release, TOKENS, tellerAgent } from '../fixtures/chunk-agents.ts'
import { validateClawpediaArtifact } from '../helpers/clawpedia-schemas.ts'
import { request, startServer, type TestServer } from '../helpers/server.ts'
import { type ReceivedEvent, readSse } from '../helpers/sse.ts'

let server: TestServer
before(async () => {
  server = await startServer({ agents: [tellerAgent] })
})
after(() => server.close())

const base = () => `${server.url}/agents/teller`
const create = async (input: object) =>
  (await request(`${base()}/tasks`, { body: { input } })).body.task_id as string
const updates = (events: ReceivedEvent[]) => events.filter((e) => e.event === 'artifact.update')

describe('streamed artifacts on the Clawpedia stream', () => {
  it('open with the artifact, then append each piece, the last marked, every frame with its id', async () => {
    const id = await create({})
    const { events, closedByServer } = await readSse(`${base()}/tasks/${id}/stream`)
    assert.ok(closedByServer)
    const frames = updates(events)
    const data = frames.map((f) => JSON.parse(f.data))
    const check = compileSchema(ClawpediaArtifactUpdate)
    for (const item of data) assert.deepEqual(check(item), [], JSON.stringify(item))
    const [opening, ...pieces] = data
    assert.deepEqual(validateClawpediaArtifact(opening.artifact), [], 'the reference Artifact')
    assert.equal(opening.artifact.type, 'text')
    assert.equal(opening.artifact.content, '')
    assert.equal(opening.artifact.metadata.mime_type, 'text/markdown')
    assert.equal(opening.last_chunk, false)
    assert.deepEqual(
      pieces.map((p) => [p.artifact_id, p.append, p.content, p.last_chunk]),
      [...TOKENS.map((t) => [opening.artifact_id, true, t, false]), [opening.artifact_id, true, '', true]],
    )
    const ids = frames.map((f) => Number(f.id))
    assert.deepEqual(
      ids,
      ids.map((_, i) => ids[0]! + i),
    )
    const listed = await request(`${base()}/tasks/${id}/artifacts`)
    assert.equal(listed.body.artifacts[0].content, TOKENS.join(''))
  })

  it('show the text so far while it grows, and resume mid-artifact from Last-Event-ID', async () => {
    const gate = `clawpedia-${randomUUID()}`
    hold(gate)
    const id = await create({ hold: gate, hold_after: 4 })
    const first = await readSse(`${base()}/tasks/${id}/stream`, {
      stopWhen: (_e, all) => updates(all).length === 5,
    })
    assert.ok(!first.closedByServer)
    const artifactId = JSON.parse(updates(first.events)[0]!.data).artifact_id
    const soFar = TOKENS.slice(0, 4).join('')
    assert.equal((await request(`${base()}/tasks/${id}/artifacts`)).body.artifacts[0].content, soFar)
    const content = await fetch(`${base()}/artifacts/${artifactId}/content`)
    assert.equal(await content.text(), soFar)
    const lastId = first.events.at(-1)!.id!
    const rest = readSse(`${base()}/tasks/${id}/stream`, { headers: { 'last-event-id': lastId } })
    release(gate)
    const resumed = updates((await rest).events)
    assert.equal(Number(resumed[0]!.id), Number(lastId) + 1)
    const text = [...updates(first.events), ...resumed]
      .map((f) => JSON.parse(f.data))
      .map((d) => (d.append ? d.content : d.artifact.content))
      .join('')
    assert.equal(text, TOKENS.join(''))
  })
})
