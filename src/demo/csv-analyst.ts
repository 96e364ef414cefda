import { AgentError, defineAgent } from '../agent/define.ts'
import type { JsonObject } from '../model/events.ts'
import { chartSvg, describeColumns, parseCsv } from './csv.ts'

const MAX_CSV_BYTES = 8 * 1024 * 1024

/** CSV in (inline text or a URL), summary statistics per column out, plus a chart. */
interface CsvInput extends JsonObject {
  csv?: string
  csv_url?: string
  delimiter?: string
}

export const csvAnalyst = defineAgent<CsvInput, JsonObject>({
  id: '3f1c7d52-8a4e-4b6f-9c2d-5e8a1b7f0c34',
  slug: 'csv-analyst',
  name: 'CSV Analyst',
  description: 'Computes summary statistics for every column of a CSV file and draws a chart of the data.',
  capabilities: ['data-analysis', 'csv', 'charts'],
  inputSchema: {
    type: 'object',
    properties: {
      csv: { type: 'string', minLength: 1, description: 'The CSV text, with a header row.' },
      csv_url: {
        type: 'string',
        format: 'uri',
        description: 'Where to download the CSV from, instead of csv.',
      },
      delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
    },
    anyOf: [{ required: ['csv'] }, { required: ['csv_url'] }],
  },
  outputSchema: {
    type: 'object',
    properties: {
      rows: { type: 'integer', minimum: 0 },
      columns: { type: 'array', items: { type: 'object', required: ['name', 'type', 'count', 'missing'] } },
    },
    required: ['rows', 'columns'],
  },
  inputModes: ['application/json', 'text/csv', 'text/plain'],
  fromText: (text) => ({ csv: text }),
  async handler(input, ctx) {
    let text = typeof input.csv === 'string' ? input.csv : undefined
    if (text === undefined) {
      await ctx.log('info', `Downloading ${String(input.csv_url)}`)
      const file = await ctx.fetchFile(String(input.csv_url), { maxBytes: MAX_CSV_BYTES })
      text = Buffer.from(file.bytes).toString('utf8')
    }
    const delimiter = typeof input.delimiter === 'string' ? input.delimiter : ','
    const [header, ...rows] = parseCsv(text, delimiter)
    if (!header || header.every((h) => h.trim() === ''))
      throw new AgentError('EMPTY_CSV', 'the CSV has no header row')
    await ctx.log('info', `Parsed ${rows.length} rows and ${header.length} columns`)
    ctx.signal.throwIfAborted()
    const columns = describeColumns(header, rows)
    for (const column of columns) {
      await ctx.log(
        'info',
        `Column "${column.name}": ${column.type}, ${column.count} values, ${column.missing} missing`,
      )
    }
    const output = { rows: rows.length, columns }
    await ctx.artifact({
      type: 'json',
      name: 'statistics',
      value: output,
      description: 'Summary statistics per column',
    })
    await ctx.artifact({
      type: 'file',
      name: 'chart',
      filename: 'chart.svg',
      mediaType: 'image/svg+xml',
      bytes: chartSvg(columns, rows, header),
      description: 'A chart of the data',
    })
    await ctx.log('info', 'Done')
    return output
  },
})
