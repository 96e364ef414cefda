import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { check, importsOf, readImports, sourceFiles } from './layers.ts'

const SRC = join(import.meta.dirname, '../../src')

describe('the layers of docs/architecture.md', () => {
  it('no file under src/ imports across a forbidden boundary', () => {
    const violations = check(readImports(SRC))
    assert.deepEqual(
      violations.map((v) => `${v.file}: '${v.specifier}' (${v.rule})`),
      [],
    )
  })

  it('the checker catches each forbidden arrow the issue names', () => {
    const bad = [
      ['client/card.ts', '../engine/engine.ts'],
      ['client/download.ts', '../push/worker.ts'],
      ['client/x.ts', '../store/contract.ts'],
      ['client/x.ts', '../dialects/a2a/mapping.ts'],
      ['model/fold.ts', '../schema/json-schema.ts'],
      ['store/sqlite/db.ts', '../../engine/engine.ts'],
      ['store/postgres/db.ts', '../../dialects/a2a/wire/task.ts'],
      ['store/x.ts', '../web/errors.ts'],
      ['engine/run.ts', '../dialects/clawpedia/mapping.ts'],
      ['engine/run.ts', '../web/sse.ts'],
      ['dialects/a2a/routes.ts', '../../server/server.ts'],
      ['dialects/a2a/routes.ts', '../clawpedia/mapping.ts'],
      ['dialects/a2a/wire/task.ts', '../../../web/errors.ts'],
      ['push/worker.ts', '../dialects/a2a/push-body.ts'],
      ['web/sse.ts', '../dialects/a2a/stream.ts'],
      ['events/postgres-bus.ts', '../engine/engine.ts'],
    ] as const
    for (const [file, specifier] of bad)
      assert.equal(check([{ file, specifier }]).length, 1, `${file} → ${specifier} must be refused`)
    assert.equal(check([{ file: 'engine/engine.ts', specifier: 'fastify' }]).length, 1)
    assert.equal(check([{ file: 'model/ids.ts', specifier: 'pg' }]).length, 1)
    const allowed = [
      ['client/transports/a2a-codec.ts', '../../dialects/a2a/wire/task.ts'],
      ['dialects/a2a/operations.ts', '../../engine/engine.ts'],
      ['server/server.ts', '../dialects/clawpedia/routes.ts'],
      ['engine/engine.ts', '../store/contract.ts'],
    ] as const
    for (const [file, specifier] of allowed)
      assert.deepEqual(check([{ file, specifier }]), [], `${file} → ${specifier} is allowed`)
  })

  it('reads static, type-only, re-exported and dynamic imports', () => {
    const text = [
      "import { a } from './a.ts'",
      "import type { B } from '../b.ts'",
      "export { c } from './c.ts'",
      "export type { D } from './d.ts'",
      'import {',
      '  e,',
      "} from './e.ts'",
      "const f = await import('./f.ts')",
      "import './g.ts'",
    ].join('\n')
    assert.deepEqual(
      importsOf('x/y.ts', text).map((i) => i.specifier),
      ['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts'],
    )
  })

  it('no source file is over 400 lines', () => {
    const long = sourceFiles(SRC)
      .map((file) => ({ file, lines: readFileSync(join(SRC, file), 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 400)
    assert.deepEqual(long, [])
  })
})
