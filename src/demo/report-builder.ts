import { defineAgent } from '../agent/define.ts'
import type { JsonObject } from '../model/events.ts'

interface ReportInput extends JsonObject {
  subject: string
  author?: string
}

/** Asks a follow-up question (INPUT_REQUIRED) before it finishes: which sections the report needs. */
export const reportBuilder = defineAgent<ReportInput, JsonObject>({
  id: '8b0e2f6a-1c3d-4e5f-a7b9-2d4c6e8f0a13',
  slug: 'report-builder',
  name: 'Report Builder',
  description:
    'Drafts a Markdown report outline on a subject, after asking which sections it should contain.',
  capabilities: ['writing', 'multi-turn'],
  inputSchema: {
    type: 'object',
    properties: {
      subject: { type: 'string', minLength: 1 },
      author: { type: 'string' },
    },
    required: ['subject'],
  },
  outputSchema: {
    type: 'object',
    properties: { title: { type: 'string' }, sections: { type: 'array', items: { type: 'string' } } },
    required: ['title', 'sections'],
  },
  fromText: (text) => ({ subject: text }),
  async handler(input, ctx) {
    const subject = String(input.subject)
    await ctx.log('info', `Planning a report on ${subject}`)
    const answer = await ctx.ask(`Which sections should the report on "${subject}" contain?`, {
      schema: {
        type: 'object',
        properties: {
          sections: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 20 },
          // A text answer (`switchboard input … --text "Intro, Numbers"`): the sections, comma-separated.
          text: { type: 'string', pattern: '[^,\\s]', maxLength: 2000 },
        },
        anyOf: [{ required: ['sections'] }, { required: ['text'] }],
      },
    })
    const listed = answer.input.sections as string[] | undefined
    const sections = (listed ?? String(answer.input.text).split(','))
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .slice(0, 20)
    await ctx.log('info', `Writing ${sections.length} sections`)
    const title = `Report: ${subject}`
    const byline = typeof input.author === 'string' ? `\n_by ${input.author}_\n` : ''
    const markdown = `# ${title}\n${byline}\n${sections.map((s, i) => `## ${i + 1}. ${s}\n\nTo be written: ${s.toLowerCase()} of ${subject}.\n`).join('\n')}`
    await ctx.artifact({
      type: 'file',
      name: 'report',
      filename: 'report.md',
      mediaType: 'text/markdown',
      bytes: markdown,
    })
    return { title, sections }
  },
})
