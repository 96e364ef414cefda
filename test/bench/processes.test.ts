import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, it } from 'node:test'
import { stopProcess } from '../../bench/harness/processes.ts'

/**
 * A round stops its server whatever became of it. A server that died of a signal (an abort in a
 * native driver) has exitCode null: the stop used to wait for an 'exit' already emitted, and the
 * whole run ended mid-way with its top-level await unsettled.
 */
describe('stopping a bench process', () => {
  it('returns at once for a process that died of a signal', { timeout: 20_000 }, async () => {
    const child = spawn(process.execPath, ['-e', "process.kill(process.pid, 'SIGKILL')"])
    await once(child, 'exit')
    assert.equal(child.exitCode, null)
    assert.equal(child.signalCode, 'SIGKILL')
    await stopProcess(child, 1000)
  })

  it('returns at once for a process that exited', { timeout: 20_000 }, async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(3)'])
    await once(child, 'exit')
    await stopProcess(child, 1000)
    assert.equal(child.exitCode, 3)
  })

  it('terminates a running process and waits for its exit', { timeout: 20_000 }, async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'])
    await once(child.stdout, 'data')
    await stopProcess(child, 10_000)
    assert.equal(child.signalCode, 'SIGTERM')
  })
})
