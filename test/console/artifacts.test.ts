import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { defineAgent } from '../../src/agent/define.ts'
import { browserMissing, launchChromium } from '../helpers/browser.ts'
import { startServer, type TestServer } from '../helpers/server.ts'

const skip = browserMissing()

/** An SVG that would run a script if it were inlined into the page. */
const HOSTILE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>window.svgRan = true</script><rect width="40" height="40" fill="teal"/></svg>'

const HOSTILE_MARKDOWN = [
  '# Findings',
  '',
  'Plain <img src=x onerror="window.mdRan = true"> text and <script>window.mdRan = true</script>.',
  '',
  '- a [safe link](https://example.org/a) and a [bad one](javascript:window.mdRan=true)',
  '- **bold** and `code`',
].join('\n')

/** Publishes one artifact of each kind the console previews. */
const gallery = defineAgent({
  id: '5d1f0c8e-2b3a-4c5d-9e6f-7a8b9c0d1e2f',
  slug: 'gallery',
  name: 'Gallery',
  description: 'Publishes an artifact of every kind, for the console tests.',
  inputSchema: { type: 'object' },
  async handler(_input, ctx) {
    await ctx.artifact({
      type: 'file',
      filename: 'hostile.svg',
      mediaType: 'image/svg+xml',
      bytes: HOSTILE_SVG,
    })
    await ctx.artifact({ type: 'text', text: HOSTILE_MARKDOWN, mediaType: 'text/markdown' })
    await ctx.artifact({ type: 'json', value: { rows: 3, ok: true } })
    await ctx.artifact({
      type: 'file',
      filename: 'data.bin',
      mediaType: 'application/octet-stream',
      bytes: 'bytes',
    })
    return { published: 4 }
  },
})

/** Echoes what its form sent: the form generator's fields, typed as the schema says. */
const formAgent = defineAgent({
  id: '6e2a1d9f-3c4b-4d6e-8f70-8b9c0d1e2f3a',
  slug: 'form-echo',
  name: 'Form Echo',
  description: 'Echoes its input, for the console form tests.',
  inputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      mode: { type: 'string', enum: ['fast', 'careful'] },
      ratio: { type: 'number' },
      dry_run: { type: 'boolean' },
      limits: { type: 'object', properties: { max: { type: 'integer' } } },
      ids: { type: 'array', items: { type: 'integer' } },
    },
    required: ['title'],
  },
  handler: (input) => ({ echo: input }),
})

describe('the console: artifacts and forms', { skip }, () => {
  let browser: Browser
  let server: TestServer
  before(async () => {
    server = await startServer({ agents: [gallery, formAgent] })
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  /** A page that records every CSP violation and console error. */
  const openPage = async (): Promise<{ page: Page; problems: string[] }> => {
    const page = await browser.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    return { page, problems }
  }

  const startTask = async (page: Page, slug: string, fill?: (page: Page) => Promise<void>) => {
    await page.goto(`${server.url}/console/agents/${slug}`)
    await fill?.(page)
    await page.getByRole('button', { name: 'Start task' }).click()
    await page.waitForURL(new RegExp(`/console/tasks/${slug}/[0-9a-f-]{36}$`))
    await page.locator('.facts .state', { hasText: /^COMPLETED$/ }).waitFor()
  }

  it('previews SVG through <img> from a blob (its script never runs), renders Markdown as text, never as HTML', async () => {
    const { page, problems } = await openPage()
    await startTask(page, 'gallery')
    const image = page.getByRole('img', { name: 'hostile.svg' })
    await image.waitFor()
    assert.match((await image.getAttribute('src')) ?? '', /^blob:/)
    // Evaluated in the page (this file has no DOM types): the image loaded and has a size.
    await page.waitForFunction('document.querySelector("img.preview")?.complete === true')
    const width = await page.evaluate('document.querySelector("img.preview").naturalWidth')
    assert.ok(Number(width) > 0, 'the SVG decoded as an image')
    assert.equal(await page.locator('svg').count(), 0, 'no SVG is inlined into the page')

    await page.getByRole('heading', { name: 'Findings' }).waitFor()
    await page.getByText('<script>window.mdRan = true</script>', { exact: false }).waitFor()
    assert.equal(await page.locator('.markdown script, .markdown img').count(), 0)
    assert.equal(
      await page.getByRole('link', { name: 'safe link' }).getAttribute('href'),
      'https://example.org/a',
    )
    assert.equal(await page.getByRole('link', { name: 'bad one' }).count(), 0)
    await page.getByText('"rows": 3').waitFor()

    const ran = await page.evaluate(() => {
      const flags = globalThis as unknown as Record<string, unknown>
      return [flags.svgRan, flags.mdRan]
    })
    assert.deepEqual(ran, [undefined, undefined])

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download data.bin' }).click(),
    ])
    assert.equal(download.suggestedFilename(), 'data.bin')
    assert.deepEqual(problems, [], 'no CSP violation or script error')
  })

  it('builds the start form from the input schema: strings, enums, numbers, booleans, nested objects, arrays', async () => {
    const { page, problems } = await openPage()
    await startTask(page, 'form-echo', async (p) => {
      await p.getByLabel('title (required)').fill('Nightly')
      await p.getByLabel('mode').selectOption('careful')
      await p.getByLabel('ratio').fill('0.5')
      await p.getByLabel('dry_run').check()
      await p.getByLabel('max').fill('7')
      await p.getByLabel('ids (one per line)').fill('3\n5')
    })
    const output = JSON.parse((await page.locator('[data-label="task output"]').textContent()) ?? '')
    assert.deepEqual(output, {
      echo: { title: 'Nightly', mode: 'careful', ratio: 0.5, dry_run: true, limits: { max: 7 }, ids: [3, 5] },
    })
    assert.deepEqual(problems, [])
  })
})
