import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// Built output is committed (console/dist) and compared with a fresh build by
// test/console/build.test.ts: keep it deterministic (no source maps, no build time in it).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    // The polyfill would be an inline script, which the console's CSP refuses.
    modulePreload: { polyfill: false },
  },
})
