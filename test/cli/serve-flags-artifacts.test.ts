import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { artifactsFlags } from '../../src/cli/serve-flags/artifacts.ts'

describe('the artifact flags', () => {
  const resolve = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, file: Record<string, unknown>) =>
    artifactsFlags.resolve({ flags, env, file })

  it('take --inline-file-bytes, then SWITCHBOARD_INLINE_FILE_BYTES, then artifacts.inlineFileBytes', () => {
    const file = { artifacts: { inlineFileBytes: 1024 } }
    assert.deepEqual(resolve({}, {}, file), { artifacts: { inlineFileBytes: 1024 } })
    assert.deepEqual(resolve({}, { SWITCHBOARD_INLINE_FILE_BYTES: '0' }, file), {
      artifacts: { inlineFileBytes: 0 },
    })
    assert.deepEqual(resolve({ inlineFileBytes: '4096' }, { SWITCHBOARD_INLINE_FILE_BYTES: '0' }, file), {
      artifacts: { inlineFileBytes: 4096 },
    })
    assert.deepEqual(resolve({}, {}, {}), {}, 'unset: the server default')
  })

  it('refuse what is not a whole number from 0 to 1 MiB, naming where it came from', () => {
    assert.throws(
      () => resolve({ inlineFileBytes: '2000000' }, {}, {}),
      /--inline-file-bytes must be a whole number from 0 to 1048576/,
    )
    assert.throws(
      () => resolve({}, { SWITCHBOARD_INLINE_FILE_BYTES: 'big' }, {}),
      /SWITCHBOARD_INLINE_FILE_BYTES/,
    )
    assert.throws(
      () => resolve({}, {}, { artifacts: { inlineFileBytes: -1 } }),
      /artifacts\.inlineFileBytes in the config file/,
    )
    assert.throws(() => resolve({}, {}, { artifacts: 'small' }), /"artifacts" must be an object/)
  })
})
