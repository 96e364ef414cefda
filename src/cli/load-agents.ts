import { register } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { tsImport } from 'tsx/esm/api'
import type { AgentDefinition } from '../agent/define.ts'

/**
 * `import … from 'switchboard'` in an agent module resolves through package.json `exports`, whose
 * `switchboard-source` condition names the sources: a fresh clone has no `dist/`, and the agent
 * then shares this process's copy of the package (one AgentError class, one engine).
 */
const SOURCE_CONDITION = `export const resolve = (specifier, context, next) =>
  next(specifier, { ...context, conditions: [...context.conditions, 'switchboard-source'] })`

let sourcesRegistered = false
const resolveSwitchboardToSources = (): void => {
  if (sourcesRegistered) return
  sourcesRegistered = true
  register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION)}`)
}

/**
 * Imports one agent module as ESM wherever it lives: in a folder without `"type": "module"` a
 * `.ts` file would otherwise be compiled to CommonJS and fail with "Cannot require() ES Module …
 * in a cycle", hiding even a syntax error (which tsx reports as `file:line:column: ERROR: …`).
 */
const importAgentModule = async (path: string): Promise<Record<string, unknown>> => {
  const url = pathToFileURL(resolve(path)).href
  try {
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(`cannot load the agent module ${path}: ${message}`)
  }
}

/** Loads agent modules: every export that is an agent definition (has a slug and a handler). */
export const loadAgents = async (paths: string[]): Promise<AgentDefinition[]> => {
  if (paths.length === 0) return (await import('../demo/index.ts')).demoAgents
  resolveSwitchboardToSources()
  const agents: AgentDefinition[] = []
  for (const path of paths) {
    const module = await importAgentModule(path)
    for (const value of Object.values(module)) {
      const candidate = value as Partial<AgentDefinition> | undefined
      if (
        candidate &&
        typeof candidate === 'object' &&
        typeof candidate.handler === 'function' &&
        candidate.slug
      ) {
        agents.push(candidate as AgentDefinition)
      }
    }
  }
  if (agents.length === 0) throw new Error(`no agent definitions exported by ${paths.join(', ')}`)
  return agents
}
