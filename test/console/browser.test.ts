import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { createApiKey } from '../../src/identity/api-keys.ts'
import { browserMissing, launchChromium } from '../helpers/browser.ts'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'

const skip = browserMissing()

/** What the keyboard test reads of the focused element, in the page (this file has no DOM types). */
interface Focusable {
  tagName?: string
  textContent?: string | null
  labels?: { textContent: string | null }[]
  getAttribute?(name: string): string | null
}

const ADMIN_TOKEN = 'console-test-admin-token'

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** A webhook endpoint that always fails; `reached(n)` resolves once it has been called n times. */
const failingEndpoint = async () => {
  let calls = 0
  const waiters: { n: number; resolve: () => void }[] = []
  const server: Server = createServer((req, res) => {
    req.resume()
    calls++
    for (const w of waiters.filter((w) => calls >= w.n)) w.resolve()
    res.writeHead(500).end('endpoint down')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls: () => calls,
    /** Fails, rather than hangs, when the calls never come (30 s: a loaded CI machine). */
    reached: (n: number) =>
      new Promise<void>((resolve, reject) => {
        if (calls >= n) return resolve()
        const timer = setTimeout(
          () => reject(new Error(`endpoint called ${calls} times, expected ${n}`)),
          30_000,
        )
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('the console in a browser', { skip }, () => {
  let browser: Browser
  let server: TestServer
  let endpoint: Awaited<ReturnType<typeof failingEndpoint>>
  const keys = { alice: '', bob: '', ops: '' }

  before(async () => {
    endpoint = await failingEndpoint()
    server = await startServer({
      identity: { apiKeys: {} },
      notifications: { 'python-script-generator': { endpointUrl: endpoint.url } },
      push: { maxAttempts: 1, baseMs: 10, capMs: 20, pollMs: 20 },
      admin: { token: ADMIN_TOKEN },
    })
    const { store } = server.switchboard
    keys.alice = (await createApiKey(store, { principal: 'alice', tenant: 'acme', scopes: [] })).key
    keys.bob = (await createApiKey(store, { principal: 'bob', tenant: 'acme', scopes: [] })).key
    keys.ops = (await createApiKey(store, { principal: 'ops', tenant: 'acme', scopes: ['admin'] })).key
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
    await endpoint?.close()
  })

  /** A fresh tab (its own sessionStorage), signed in with `key`. */
  const signedIn = async (key: string, path = '/console'): Promise<Page> => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${server.url}${path}`)
    await page.getByLabel('API key or bearer token').fill(key)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    return page
  }

  const stateIs = (page: Page, state: string) =>
    page.locator('.facts .state', { hasText: new RegExp(`^${state}$`) }).waitFor()

  const startFromForm = async (page: Page, slug: string, fill: (page: Page) => Promise<void>) => {
    await page.goto(`${server.url}/console/agents/${slug}`)
    await fill(page)
    await page.getByRole('button', { name: 'Start task' }).click()
    await page.waitForURL(new RegExp(`/console/tasks/${slug}/[0-9a-f-]{36}$`))
    return page.url().split('/').pop()!
  }

  it('refuses a bad key at sign-in, and keeps the good one in sessionStorage only', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${server.url}/console`)
    await page.getByLabel('API key or bearer token').fill('sbk_not-a-key')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText('The server refused this credential.').waitFor()
    await page.getByLabel('API key or bearer token').fill(keys.alice)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'Long Runner' }).waitFor()
    // Runs in the page: its storage objects, read through globalThis (this file has no DOM types).
    const stored = await page.evaluate(() => {
      const { sessionStorage, localStorage } = globalThis as unknown as Record<string, Record<string, string>>
      return { session: { ...sessionStorage }, local: { ...localStorage } }
    })
    assert.deepEqual(Object.values(stored.session), [keys.alice])
    assert.deepEqual(stored.local, {})
  })

  it('is usable by keyboard alone: sign in, open an agent, start a task, with the focus visible', async () => {
    const page = await (await browser.newContext()).newPage()
    await page.goto(`${server.url}/console`)
    /** Presses Tab until the focused element matches, within a bound (a missing target fails). */
    const tabTo = async (describe: string, matches: (focused: { tag: string; label: string }) => boolean) => {
      for (let presses = 0; presses < 60; presses++) {
        await page.keyboard.press('Tab')
        const focused = await page.evaluate(() => {
          const el = (globalThis as unknown as { document: { activeElement: Focusable | null } }).document
            .activeElement
          return {
            tag: String(el?.tagName ?? '').toLowerCase(),
            label: String(
              el?.getAttribute?.('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent ?? '',
            ).trim(),
          }
        })
        if (matches(focused)) return
      }
      assert.fail(`Tab never reached ${describe}`)
    }
    await tabTo('the key field', (f) => f.tag === 'input')
    await page.keyboard.type(keys.alice)
    await page.keyboard.press('Enter')
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await tabTo('the Long Runner link', (f) => f.tag === 'a' && f.label === 'Long Runner')
    const outline = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { activeElement: Focusable | null } }).document
      const view = globalThis as unknown as { getComputedStyle: (el: unknown) => { outlineStyle: string } }
      return view.getComputedStyle(doc.activeElement).outlineStyle
    })
    assert.notEqual(outline, 'none', 'the focused link shows its focus')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/console\/agents\/long-runner$/)
    await tabTo('the steps field', (f) => f.tag === 'input' && f.label.startsWith('steps'))
    await page.keyboard.type('1')
    await tabTo('the Start task button', (f) => f.tag === 'button' && f.label === 'Start task')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/console\/tasks\/long-runner\/[0-9a-f-]{36}$/)
    await stateIs(page, 'COMPLETED')
  })

  it('starts a task from the input-schema form and shows its log lines as they arrive', async () => {
    const page = await signedIn(keys.alice)
    await startFromForm(page, 'long-runner', async (p) => {
      await p.getByLabel('steps (required)').fill('3')
      await p.getByLabel('step_ms').fill('100')
    })
    for (const line of ['step 1/3 (33%)', 'step 2/3 (67%)', 'step 3/3 (100%)'])
      await page.locator('.log').getByText(line).waitFor()
    await stateIs(page, 'COMPLETED')
    assert.match((await page.locator('[data-label="task output"]').textContent()) ?? '', /"steps": 3/)
    assert.match((await page.locator('[data-label="task input"]').textContent()) ?? '', /"step_ms": 100/)
  })

  it('answers an INPUT_REQUIRED from the form the question schema gives, and renders the Markdown artifact', async () => {
    const page = await signedIn(keys.alice)
    await startFromForm(page, 'report-builder', (p) => p.getByLabel('subject (required)').fill('Ferries'))
    await stateIs(page, 'INPUT_REQUIRED')
    await page.getByText('Which sections should the report on "Ferries" contain?').waitFor()
    await page.getByLabel('sections (one per line)').fill('Routes\nTimetables')
    await page.getByRole('button', { name: 'Send answer' }).click()
    await stateIs(page, 'COMPLETED')
    // The artifact's Markdown, as elements: its headings are headings.
    await page.getByRole('heading', { name: '2. Timetables' }).waitFor()
    await page.getByRole('button', { name: 'Download report.md' }).waitFor()
    // Opened afresh, the finished task's page replays its log from the stream.
    await page.reload()
    await page.locator('.log').getByText('Writing 2 sections').waitFor()
  })

  it('cancels a long task', async () => {
    const page = await signedIn(keys.alice)
    await startFromForm(page, 'long-runner', (p) => p.getByLabel('steps (required)').fill('1000'))
    await stateIs(page, 'WORKING')
    await page.getByRole('button', { name: 'Cancel task' }).click()
    await stateIs(page, 'CANCELLED')
    await page.getByRole('button', { name: 'Cancel task' }).waitFor({ state: 'detached' })
  })

  it("lists tasks live, and another principal's task is absent from the list and its page", async () => {
    const created = await request(`${server.url}/agents/long-runner/tasks`, {
      body: { input: { steps: 1, step_ms: 0 } },
      headers: bearer(keys.alice),
    })
    const aliceTask = created.body.task_id as string
    const page = await signedIn(keys.bob, '/console/tasks')
    await page.getByText('No tasks that this identity may see.').waitFor()
    // A task bob starts elsewhere appears without a reload.
    const mine = await request(`${server.url}/agents/long-runner/tasks`, {
      body: { input: { steps: 1, step_ms: 0 } },
      headers: bearer(keys.bob),
    })
    await page.locator(`[data-task="${mine.body.task_id}"]`).waitFor()
    await page.locator(`[data-task="${mine.body.task_id}"] .state`, { hasText: 'COMPLETED' }).waitFor()
    // The list the new row came in holds every task bob may see: alice's is not one.
    assert.equal(await page.locator('[data-task]').count(), 1)
    assert.equal(await page.locator(`[data-task="${aliceTask}"]`).count(), 0)
    await page.goto(`${server.url}/console/tasks/long-runner/${aliceTask}`)
    await page.getByRole('alert').filter({ hasText: '404' }).waitFor()
    assert.doesNotMatch(await page.content(), /"steps": 1/)
  })

  it('signs in with the admin token: the push outbox opens, the task APIs say they refuse it', async () => {
    const page = await signedIn(ADMIN_TOKEN, '/console/push')
    await page.getByRole('heading', { name: 'Push deliveries' }).waitFor()
    await page.getByRole('link', { name: 'Tasks' }).click()
    await page.getByRole('alert').filter({ hasText: '401' }).waitFor()
  })

  /** The outbox's counts once nothing is pending or in flight: a retry's count is known only then. */
  const outboxSettled = () =>
    eventually(
      async () => {
        const stats = await request<{ counts: Record<string, number> }>(
          `${server.url}/admin/deliveries/stats`,
          { headers: bearer(ADMIN_TOKEN) },
        )
        assert.equal(stats.status, 200)
        return (stats.body.counts.pending ?? 0) === 0 ? stats.body.counts : undefined
      },
      30_000,
      'an outbox with nothing pending',
    )

  it('shows dead letters with their last error and retries one; a non-admin is told why it sees none', async () => {
    const created = await request(`${server.url}/agents/python-script-generator/tasks`, {
      body: { input: { topic: 'ferries', filename: 'ferries.py' } },
      headers: bearer(keys.alice),
    })
    assert.equal(created.status, 202)
    const taskUrl = `${server.url}/agents/python-script-generator/tasks/${created.body.task_id}`
    // Every notification of the task is enqueued once it has ended; each dies at its one attempt.
    await eventually(
      async () => {
        const task = await request(taskUrl, { method: 'GET', headers: bearer(keys.alice) })
        return task.body.status === 'COMPLETED' ? task : undefined
      },
      30_000,
      'the task to complete',
    )
    await outboxSettled()

    const alice = await signedIn(keys.alice, '/console/push')
    await alice.getByText(/The push outbox is for operators/).waitFor()

    const ops = await signedIn(keys.ops, '/console/push')
    const row = ops.locator('tr[data-delivery]', { hasText: created.body.task_id }).first()
    // The error cell, not any text with 500 in it: a task id may hold those digits.
    await row.getByText(/^HTTP 500 /).waitFor()
    const reachedBeforeRetry = endpoint.calls()
    await row.getByRole('button', { name: /^Retry delivery/ }).click()
    // The retried delivery is sent again (and, the endpoint still down, dies again).
    await endpoint.reached(reachedBeforeRetry + 1)
    const { dead } = await outboxSettled()
    assert.ok(dead !== undefined && dead > 0)
    // Retry all: every dead letter is sent again, once the page lists exactly the dead in the store.
    // A refresh that began while the retried delivery was in flight may count it dead and not list
    // it (the page reads the counts and the lists in parallel): the next refresh (2 s) agrees.
    const summary = new RegExp(`^Outbox: 0 pending, \\d+ delivered, ${dead} dead\\.$`)
    await eventually(
      async () =>
        (await ops.getByText(summary).count()) === 1 &&
        (await ops.locator('tr[data-delivery]').count()) === dead
          ? true
          : undefined,
      30_000,
      `the page to list the ${dead} dead letters`,
    )
    const beforeAll = endpoint.calls()
    await ops.getByRole('button', { name: 'Retry all dead letters' }).click()
    await endpoint.reached(beforeAll + dead)
    assert.equal((await outboxSettled()).dead, dead)
  })
})

describe('the console with no authentication configured', { skip }, () => {
  let browser: Browser
  let server: TestServer
  before(async () => {
    server = await startServer()
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('works anonymously and says so; health shows the store, this replica and the metrics', async () => {
    const page = await browser.newPage()
    await page.goto(`${server.url}/console/health`)
    await page.getByText('Anonymous: this server has no authentication configured').waitFor()
    await page.locator('#store + p .state', { hasText: 'ready' }).waitFor()
    await page.getByText(server.switchboard.engine.replicaId).waitFor()
    await page.getByText('open tasks').waitFor()
  })
})
