import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

/**
 * The import rules of docs/architecture.md, as data. A file's layer is its folder under `src/`
 * (`dialects/<name>` and `dialects/<name>/wire` are layers of their own); the entry points at the
 * root of `src/` are the package's public faces. Each layer lists what it may import, itself
 * included; anything else is a violation.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  model: ['model'],
  schema: ['model', 'schema'],
  agent: ['model', 'agent'],
  outbound: ['model', 'agent', 'outbound'],
  store: ['model', 'store'],
  events: ['model', 'store', 'events'],
  engine: ['model', 'agent', 'schema', 'store', 'events', 'engine'],
  push: ['model', 'store', 'outbound', 'push'],
  identity: ['model', 'schema', 'store', 'outbound', 'identity'],
  web: ['model', 'schema', 'engine', 'web'],
  // Tracing and metrics: the OpenTelemetry API, the opt-in SDK (otel-sdk.ts, loaded dynamically).
  observability: ['model', 'observability'],
  wire: ['model', 'schema', 'own-wire'],
  dialect: ['model', 'agent', 'schema', 'engine', 'web', 'own-wire', 'own-dialect'],
  server: [
    'model',
    'agent',
    'schema',
    'outbound',
    'store',
    'events',
    'engine',
    'push',
    'identity',
    'web',
    'observability',
    'any-dialect',
    'server',
  ],
  client: ['model', 'schema', 'outbound', 'any-wire', 'client'],
  demo: ['model', 'agent', 'demo'],
  cli: ['*'],
  'entry:index': ['model', 'agent'],
  'entry:client': ['model', 'client'],
  'entry:server': ['*'],
}

/** Packages that only the edges may load: the core stays free of web servers, drivers and HTTP clients. */
const ALL_INFRASTRUCTURE = ['fastify', 'pg', 'better-sqlite3', 'undici']
const FORBIDDEN_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  model: ALL_INFRASTRUCTURE,
  agent: ALL_INFRASTRUCTURE,
  schema: ALL_INFRASTRUCTURE,
  wire: ALL_INFRASTRUCTURE,
  engine: ALL_INFRASTRUCTURE,
  identity: ['fastify', 'pg', 'better-sqlite3'],
  // Hooks are typed against fastify without loading it; no driver, no HTTP client.
  observability: ALL_INFRASTRUCTURE.filter((name) => name !== 'fastify'),
  dialect: ['pg', 'better-sqlite3'],
  // The webhook receiver offers a fastify plugin, typed against fastify without loading it.
  client: ['pg', 'better-sqlite3'],
}

export interface Place {
  layer: string
  /** For dialect layers: the dialect's name. */
  dialect?: string
}

/** The layer of a path relative to `src/` (`engine/run.ts`, `dialects/a2a/wire/parts.ts`, `server.ts`). */
export const placeOf = (path: string): Place => {
  const parts = path.split('/')
  if (parts.length === 1) return { layer: `entry:${parts[0]!.replace(/\.ts$/, '')}` }
  if (parts[0] === 'dialects') {
    const dialect = parts[1]!
    return parts[2] === 'wire' ? { layer: 'wire', dialect } : { layer: 'dialect', dialect }
  }
  return { layer: parts[0]! }
}

const permits = (from: Place, to: Place): boolean => {
  const allowed = ALLOWED[from.layer]
  if (!allowed) return false
  if (allowed.includes('*')) return true
  if (to.layer === 'wire') {
    if (allowed.includes('any-wire') || allowed.includes('any-dialect')) return true
    return allowed.includes('own-wire') && to.dialect === from.dialect
  }
  if (to.layer === 'dialect') {
    if (allowed.includes('any-dialect')) return true
    return allowed.includes('own-dialect') && to.dialect === from.dialect
  }
  return allowed.includes(to.layer)
}

export interface Import {
  /** The importing file, relative to `src/`. */
  file: string
  /** The specifier as written. */
  specifier: string
}

export interface Violation extends Import {
  rule: string
}

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^import\s*['"]([^'"]+)['"]/gm

/** Every static and dynamic import in a file's text. */
export const importsOf = (file: string, text: string): Import[] =>
  [...text.matchAll(SPECIFIER)].map((m) => ({ file, specifier: (m[1] ?? m[2] ?? m[3])! }))

/** The rules each import breaks, if any. */
export const check = (imports: readonly Import[]): Violation[] => {
  const violations: Violation[] = []
  for (const entry of imports) {
    const from = placeOf(entry.file)
    if (entry.specifier.startsWith('.')) {
      const target = normalize(join(dirname(entry.file), entry.specifier))
      if (target.startsWith('..')) {
        violations.push({ ...entry, rule: 'imports from outside src/' })
        continue
      }
      const to = placeOf(target)
      if (!permits(from, to))
        violations.push({ ...entry, rule: `${describe(from)} may not import ${describe(to)}` })
      continue
    }
    const pkg = entry.specifier.startsWith('@')
      ? entry.specifier.split('/').slice(0, 2).join('/')
      : entry.specifier.split('/')[0]!
    if (FORBIDDEN_PACKAGES[from.layer]?.includes(pkg))
      violations.push({ ...entry, rule: `${describe(from)} may not load ${pkg}` })
  }
  return violations
}

const describe = (place: Place): string =>
  place.dialect ? `${place.layer === 'wire' ? 'wire of ' : 'dialect '}${place.dialect}` : place.layer

/** Every `.ts` file under a folder, relative to it. */
export const sourceFiles = (root: string): string[] => {
  const found: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) found.push(relative(root, path))
    }
  }
  walk(root)
  return found.sort()
}

export const readImports = (root: string): Import[] =>
  sourceFiles(root).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')))
