import {
  EXTENSIONS_HEADER,
  formatExtensions,
  parseExtensions,
} from '../../dialects/a2a/wire/service-parameters.ts'
import type { HeaderReader } from '../card-cache.ts'
import type { RemoteTask } from '../types.ts'

/** The A2A-Extensions request header activating `extensions`; none when there are none. */
export const extensionHeaders = (extensions: readonly string[]): Record<string, string> =>
  extensions.length > 0 ? { [EXTENSIONS_HEADER.toLowerCase()]: formatExtensions(extensions) } : {}

/** A message's answer with the extensions the agent says it activated for that message (its echo). */
export const withEchoedExtensions = (task: RemoteTask, headers: HeaderReader): RemoteTask => {
  const echoed = parseExtensions(headers.get(EXTENSIONS_HEADER))
  if (echoed.length > 0) task.extensions = echoed
  return task
}
