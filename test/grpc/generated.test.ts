import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { filesUnder } from '../helpers/files.ts'

const ROOT = join(import.meta.dirname, '../..')
const COMMITTED = join(ROOT, 'src/dialects/a2a/wire/grpc')

describe('the generated gRPC code', () => {
  it('the proto is the spec v1.0.1 proto, unmodified', () => {
    const sha = createHash('sha256')
      .update(readFileSync(join(ROOT, 'proto/lf/a2a/v1/a2a.proto')))
      .digest('hex')
    assert.equal(sha, 'e195bf96ab630c69797851970203e1b2b6b19528f2e9803b7d904b91a5104016')
  })

  it('regenerating gives exactly what is committed', () => {
    const out = mkdtempSync(join(tmpdir(), 'switchboard-grpc-regen-'))
    try {
      execFileSync(process.execPath, [join(ROOT, 'proto/generate.mjs'), out], { stdio: 'pipe' })
      const fresh = filesUnder(out)
      const committed = filesUnder(COMMITTED)
      assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort())
      for (const [file, text] of fresh) assert.equal(committed.get(file), text, `${file} differs`)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
