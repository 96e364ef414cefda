import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { CONSOLE_DIST } from '../../src/server/console.ts'
import { filesUnder } from '../helpers/files.ts'

const ROOT = join(import.meta.dirname, '../..')

describe('the committed console build', () => {
  it('a fresh build of console/src gives exactly console/dist (run npm run build:console after a change)', () => {
    const out = mkdtempSync(join(tmpdir(), 'switchboard-console-build-'))
    try {
      execFileSync(
        join(ROOT, 'node_modules/.bin/vite'),
        ['build', '--config', join(ROOT, 'console/vite.config.ts'), '--outDir', out, '--emptyOutDir'],
        { cwd: ROOT, stdio: 'pipe' },
      )
      const fresh = filesUnder(out)
      const committed = filesUnder(CONSOLE_DIST)
      assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort())
      for (const [file, text] of fresh) assert.equal(committed.get(file), text, `${file} differs`)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  })
})
