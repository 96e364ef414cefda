// The README's picture of the console's task page (npm run screenshot:console): a demo server,
// a Report Builder task taken through its question to the end, and that task's page in Chromium.
import { join } from 'node:path'
import { launchChromium } from '../helpers/browser.ts'
import { eventually, request, startServer } from '../helpers/server.ts'

const OUT = join(import.meta.dirname, '../../docs/console-task.png')

const server = await startServer()
const browser = await launchChromium()
try {
  const tasks = `${server.url}/agents/report-builder/tasks`
  const created = await request(tasks, { body: { input: { subject: 'Harbour ferries', author: 'Ops' } } })
  const id = created.body.task_id as string
  const state = (wanted: string) =>
    eventually(
      async () => ((await request(`${tasks}/${id}`)).body.status === wanted ? true : undefined),
      10_000,
      wanted,
    )
  await state('INPUT_REQUIRED')
  await request(`${tasks}/${id}/input`, { body: { input: { sections: ['Routes', 'Timetables', 'Fares'] } } })
  await state('COMPLETED')

  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
  await page.goto(`${server.url}/console/tasks/report-builder/${id}`)
  await page.getByRole('heading', { name: '3. Fares' }).waitFor()
  await page.locator('.log').getByText('Writing 3 sections').waitFor()
  await page.screenshot({ path: OUT, fullPage: true })
  console.log(`wrote ${OUT}`)
} finally {
  await browser.close()
  await server.close()
}
