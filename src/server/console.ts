import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Logger } from 'pino'
import { PUBLIC_ROUTE } from '../web/caller.ts'

/** Where the console is served. */
export const CONSOLE_PATH = '/console'

/**
 * The built console (`npm run build:console`), committed: `console/dist/` at the package root,
 * two levels up from this file both as source (src/server/) and as build output (dist/server/).
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * Only the console's own files: no inline script or style, no other origin. Artifacts are
 * previewed from `blob:` URLs the page made from bytes it fetched with the operator's credential;
 * an SVG shown through <img> runs no script.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

interface ConsoleFile {
  body: Buffer
  type: string
}

/** Every file of the build, by its URL path under the console ('assets/index-….js'). */
const loadFiles = (root: string): Map<string, ConsoleFile> => {
  const files = new Map<string, ConsoleFile>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else
        files.set(relative(root, path).split(sep).join('/'), {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? 'application/octet-stream',
        })
    }
  }
  walk(root)
  return files
}

/**
 * The operator console: public static files, loaded into memory once. A request names a file by
 * its exact path in the build or gets the app's page (its client-side routes), so no path reaches
 * outside the build whatever it spells. Every data call the page makes goes through the APIs with
 * the operator's own credential: the console sees what that identity may see, and no more.
 */
export const consoleRoutes = async (
  app: FastifyInstance,
  options: { root?: string; logger: Logger },
): Promise<void> => {
  const root = options.root ?? CONSOLE_DIST
  const files = existsSync(join(root, 'index.html')) ? loadFiles(root) : new Map<string, ConsoleFile>()
  if (files.size === 0)
    options.logger.warn({ root }, 'the console is not built (npm run build:console): /console answers 404')

  const send = (reply: FastifyReply, file: ConsoleFile, cache: string) =>
    reply
      .header('content-type', file.type)
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', cache)
      .send(file.body)

  const page = (reply: FastifyReply) => {
    const index = files.get('index.html')
    if (!index)
      return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'the console is not built' } })
    // The page names its hashed assets: it must be fetched again after an upgrade.
    return send(reply, index, 'no-cache')
  }

  app.get(CONSOLE_PATH, PUBLIC_ROUTE, (_request, reply) => page(reply))
  app.get<{ Params: { '*': string } }>(`${CONSOLE_PATH}/*`, PUBLIC_ROUTE, (request, reply) => {
    const path = request.params['*']
    const file = path === 'index.html' ? undefined : files.get(path)
    // Asset names carry their content hash: cached for good.
    if (file) return send(reply, file, 'public, max-age=31536000, immutable')
    // A missing asset is a 404, not the page: a stale script tag must not get HTML back.
    if (path.startsWith('assets/') || extname(path) !== '')
      return reply
        .code(404)
        .header('x-content-type-options', 'nosniff')
        .send({ error: { code: 'NOT_FOUND', message: `no console file ${path}` } })
    return page(reply)
  })
}
