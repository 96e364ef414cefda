/**
 * The bench measures Switchboard built, as an application imports the package: its `exports`
 * point at `dist/`, compiled by `npm run build` (tsc). Running the TypeScript sources through tsx
 * instead costs 6–8 % more instructions per send (callgrind; tsx's transform names every function
 * it creates), which an application importing the package does not pay, nor the SDK, run from its
 * own compiled `dist/`.
 */
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = join(import.meta.dirname, '../..')
const DIST = join(ROOT, 'dist')

/** Compiles `src/` into `dist/` (`npm run build`): every run measures the tree it runs in. */
export const buildSwitchboard = (): void => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' })
}

/**
 * A module of the build, typed as its source (`typeof import('../../src/….ts')`): the typecheck
 * needs no build, and the process loads the compiled file, not the source.
 */
export const built = <Module>(path: string): Promise<Module> =>
  import(pathToFileURL(join(DIST, path)).href) as Promise<Module>
