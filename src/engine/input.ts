import { SwitchboardError } from '../model/errors.ts'
import type { JsonObject } from '../model/events.ts'
import type { HostedAgent } from './registry.ts'

/** The input object of a request: explicit, or derived from text, then validated. */
export const resolveInput = (
  agent: HostedAgent | undefined,
  input: JsonObject | undefined,
  text: string | undefined,
  validate: HostedAgent['validateInput'],
  root: string,
): JsonObject => {
  let value: JsonObject = input ?? {}
  if (input === undefined && text !== undefined && agent?.definition.fromText) {
    try {
      value = agent.definition.fromText(text)
    } catch (error) {
      throw new SwitchboardError(
        'INPUT_SCHEMA_VIOLATION',
        `the text could not be read as input: ${(error as Error).message}`,
      )
    }
  }
  const violations = validate(value, root)
  if (violations.length > 0) {
    throw new SwitchboardError(
      'INPUT_SCHEMA_VIOLATION',
      `input does not conform to the schema: ${violations.map((v) => v.description).join('; ')}`,
      { violations },
    )
  }
  return value
}
