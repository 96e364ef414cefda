import type { AgentDefinition } from '../agent/define.ts'
import { SwitchboardError } from '../model/errors.ts'
import { assertValidSchema, compileSchema, type Validator } from '../schema/json-schema.ts'

/** An agent as the engine holds it: the definition plus its compiled validators. */
export interface HostedAgent {
  readonly definition: AgentDefinition
  readonly validateInput: Validator
  readonly validateOutput: Validator | undefined
}

/** The agents one server hosts, by slug, in declaration order (the first is the default). */
export class AgentRegistry {
  readonly #agents = new Map<string, HostedAgent>()

  constructor(definitions: readonly AgentDefinition[]) {
    if (definitions.length === 0) throw new TypeError('a server needs at least one agent')
    for (const definition of definitions) {
      if (this.#agents.has(definition.slug))
        throw new TypeError(`two agents share the slug "${definition.slug}"`)
      assertValidSchema(definition.inputSchema, `agent "${definition.slug}": inputSchema`)
      if (definition.outputSchema)
        assertValidSchema(definition.outputSchema, `agent "${definition.slug}": outputSchema`)
      this.#agents.set(definition.slug, {
        definition,
        validateInput: compileSchema(definition.inputSchema),
        validateOutput: definition.outputSchema ? compileSchema(definition.outputSchema) : undefined,
      })
    }
  }

  get(slug: string): HostedAgent {
    const agent = this.#agents.get(slug)
    if (!agent) throw new SwitchboardError('AGENT_NOT_FOUND', `no agent "${slug}"`)
    return agent
  }

  has(slug: string): boolean {
    return this.#agents.has(slug)
  }

  all(): HostedAgent[] {
    return [...this.#agents.values()]
  }
}
