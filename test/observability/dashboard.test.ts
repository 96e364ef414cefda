/**
 * The Grafana dashboard (examples/observability/grafana-dashboard.json) is importable and shows
 * what Switchboard exports: every metric its queries name is in docs/observability.md's table and
 * in a real /metrics scrape, and every metric of that table has a panel.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { eventually, request, startServer, type TestServer } from '../helpers/server.ts'
import { type Exposition, parseExposition } from './prometheus-text.ts'

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')

interface Target {
  expr: string
  datasource: { type: string; uid: string }
}
interface Panel {
  id: number
  type: string
  title: string
  datasource?: { type: string; uid: string }
  targets?: Target[]
  gridPos: { h: number; w: number; x: number; y: number }
}

const dashboard = JSON.parse(read('examples/observability/grafana-dashboard.json')) as {
  __inputs: { name: string; type: string; pluginId: string }[]
  schemaVersion: number
  uid: string
  panels: Panel[]
  templating: { list: { name: string; query: { query: string } | string; includeAll?: boolean }[] }
}
/** Grafana's placeholder for the data source picked on import (a literal, not a JS template). */
const DATASOURCE_UID = ['$', '{DS_PROMETHEUS}'].join('')
const targets = dashboard.panels.flatMap((panel) => panel.targets ?? [])

/** The metrics table of docs/observability.md: name → type (`counter`, `histogram`, `gauge (scrape)`). */
const documented = new Map(
  [...read('docs/observability.md').matchAll(/^\| `(switchboard_[a-z0-9_]+)` +\| ([^|]+?) +\|/gm)].map(
    (row) => [row[1]!, row[2]!],
  ),
)

const HISTOGRAM_SERIES = /_(bucket|sum|count)$/

/** The metric family a series name in PromQL belongs to: a histogram's _bucket/_sum/_count map to it. */
const familyOf = (series: string): string => {
  const base = series.replace(HISTOGRAM_SERIES, '')
  return base !== series && documented.get(base) === 'histogram' ? base : series
}

const used = new Set(
  targets.flatMap((target) => [...target.expr.matchAll(/\bswitchboard_[a-z0-9_]+/g)].map((m) => m[0])),
)

describe('the Grafana dashboard', () => {
  it('is an importable dashboard: current schema, a DS_PROMETHEUS input every query uses', () => {
    assert.ok(dashboard.schemaVersion >= 39, `schemaVersion ${dashboard.schemaVersion}`)
    assert.equal(dashboard.uid, 'switchboard-overview')
    assert.deepEqual(
      dashboard.__inputs.map((input) => [input.name, input.type, input.pluginId]),
      [['DS_PROMETHEUS', 'datasource', 'prometheus']],
    )
    assert.ok(targets.length > 0)
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      assert.deepEqual(panel.datasource, { type: 'prometheus', uid: DATASOURCE_UID }, panel.title)
      for (const target of panel.targets ?? []) assert.deepEqual(target.datasource, panel.datasource)
    }
    const ids = dashboard.panels.map((panel) => panel.id)
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique')
    for (const panel of dashboard.panels) assert.ok(panel.gridPos.x + panel.gridPos.w <= 24, panel.title)
  })

  it('filters the task panels by an agent template variable', () => {
    const agent = dashboard.templating.list.find((variable) => variable.name === 'agent')
    assert.ok(agent?.includeAll)
    assert.match(JSON.stringify(agent.query), /label_values\(switchboard_tasks_created_total, agent\)/)
    const byAgent = targets.filter((target) => target.expr.includes('agent=~"$agent"'))
    for (const family of [
      'switchboard_tasks_created_total',
      'switchboard_tasks_finished_total',
      'switchboard_tasks_open',
      'switchboard_task_duration_seconds_bucket',
      'switchboard_task_time_to_first_event_seconds_bucket',
    ])
      assert.ok(
        byAgent.some((target) => target.expr.includes(family)),
        `${family} is filtered by $agent`,
      )
  })

  it('takes quantiles from histogram buckets only', () => {
    for (const target of targets.filter((t) => t.expr.includes('histogram_quantile'))) {
      assert.match(target.expr, /sum by \(le\b.*_bucket[{[]/, target.expr)
      const [series] = target.expr.match(/switchboard_[a-z0-9_]+_bucket/) ?? []
      assert.equal(documented.get(familyOf(series!)), 'histogram', target.expr)
    }
  })

  it('names only documented metrics, and has a panel for every documented one', () => {
    assert.ok(documented.size >= 15, 'the docs table was read')
    for (const series of used) {
      const family = familyOf(series)
      assert.ok(documented.has(family), `${series} is not in docs/observability.md`)
    }
    const families = new Set([...used].map(familyOf))
    for (const name of documented.keys()) assert.ok(families.has(name), `no panel shows ${name}`)
  })

  describe('against a real scrape after a workload', () => {
    let server: TestServer
    let scraped: Exposition
    before(async () => {
      server = await startServer()
      const created = await request(`${server.url}/agents/long-runner/tasks`, {
        body: { input: { steps: 1, step_ms: 0 } },
      })
      assert.equal(created.status, 202)
      await eventually(async () => {
        const { body } = await request(`${server.url}/agents/long-runner/tasks/${created.body.task_id}`)
        return body.status === 'COMPLETED' ? true : undefined
      })
      // No admin token and no authenticators: /metrics serves loopback clients, as /admin does.
      const response = await fetch(`${server.url}/metrics`)
      assert.equal(response.status, 200)
      scraped = parseExposition(await response.text())
    })
    after(async () => {
      await server?.close()
    })

    it('exports every metric family the dashboard queries, histograms as histograms', () => {
      for (const series of used) {
        const family = familyOf(series)
        assert.ok(scraped.types.has(family), `${family} is not in the scrape`)
        if (family !== series) assert.equal(scraped.types.get(family), 'histogram', series)
      }
      assert.ok(
        scraped.samples.some((sample) => sample.name === 'switchboard_tasks_finished_total'),
        'the workload shows in the scrape',
      )
    })
  })
})
