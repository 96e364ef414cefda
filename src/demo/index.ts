import { csvAnalyst } from './csv-analyst.ts'
import { longRunner } from './long-runner.ts'
import { pythonScriptGenerator } from './python-script-generator.ts'
import { reportBuilder } from './report-builder.ts'

/** The demo agents, in mount order: the first is also served at the root (the reference's example agent). */
export const demoAgents = [pythonScriptGenerator, csvAnalyst, reportBuilder, longRunner]

export { csvAnalyst, longRunner, pythonScriptGenerator, reportBuilder }
