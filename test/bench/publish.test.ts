import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { makePlan } from '../../bench/harness/plan.ts'
import { PUBLISHED, publish, type RunOutcome, readOutcome, UNPUBLISHED } from '../../bench/harness/publish.ts'

const outcome = (command: string): RunOutcome => ({
  command,
  plan: makePlan({ quick: true, only: ['stream'] }),
  machine: { nproc: 2, cpu: 'test CPU', node: process.version, loadBefore: '0', loadAfter: '0' },
  date: '2026-12-03T19:00:00.000Z',
  seconds: 1,
  notes: [],
  records: [],
})

/** `--from-results` renders the README's run again: a run that publishes nothing must not replace it. */
describe('where a run leaves its outcome', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-publish-'))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const silently = <T>(body: () => T): T => {
    const write = process.stdout.write
    process.stdout.write = () => true
    try {
      return body()
    } finally {
      process.stdout.write = write
    }
  }

  it('a run that writes the README is the published one; a run without it leaves that alone', () => {
    const readme = join(dir, 'README.md')
    writeFileSync(readme, 'before\n<!-- bench:results:start -->\nold\n<!-- bench:results:end -->\nafter\n')
    silently(() => publish(outcome('npm run bench'), { results: dir, readme }))
    assert.equal(readOutcome(dir).command, 'npm run bench')
    assert.match(readFileSync(readme, 'utf8'), /Command: `npm run bench`/)
    assert.equal(existsSync(join(dir, UNPUBLISHED)), false)

    silently(() => publish(outcome('npm run bench -- --stream-artifacts 0 --no-readme'), { results: dir }))
    assert.equal(
      readOutcome(dir).command,
      'npm run bench',
      'the published run is still the one rendered again',
    )
    assert.match(readFileSync(join(dir, UNPUBLISHED), 'utf8'), /--stream-artifacts 0 --no-readme/)
    assert.match(readFileSync(readme, 'utf8'), /Command: `npm run bench`/)
    assert.ok(existsSync(join(dir, PUBLISHED)))
  })
})
