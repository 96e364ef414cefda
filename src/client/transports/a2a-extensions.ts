import {
  EXTENSIONS_HEADER,
  formatExtensions,
  parseExtensions,
} from '../../dialects/a2a/wire/service-parameters.ts'
import type { HeaderReader } from '../card-cache.ts'
import type { RemoteTask } from '../types.ts'

/**
 * The request header activating `extensions`; none when there are none. `header` is the
 * version's name for it: A2A-Extensions (1.0), X-A2A-Extensions (0.3).
 */
export const extensionHeaders = (
  extensions: readonly string[],
  header: string = EXTENSIONS_HEADER,
): Record<string, string> =>
  extensions.length > 0 ? { [header.toLowerCase()]: formatExtensions(extensions) } : {}

/** A message's answer with the extensions the agent says it activated for that message (its echo). */
export const withEchoedExtensions = (
  task: RemoteTask,
  headers: HeaderReader,
  header: string = EXTENSIONS_HEADER,
): RemoteTask => {
  const echoed = parseExtensions(headers.get(header))
  if (echoed.length > 0) task.extensions = echoed
  return task
}
