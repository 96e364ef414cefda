import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** Every file under `root`, by its path relative to it, with its text: to compare a fresh build with a committed one. */
export const filesUnder = (root: string): Map<string, string> => {
  const files = new Map<string, string>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else files.set(relative(root, path), readFileSync(path, 'utf8'))
    }
  }
  walk(root)
  return files
}
