import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`): never a browser a test tool downloads. */
export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium'

/**
 * Why browser tests cannot run here, or undefined when they can. Under CI
 * (SWITCHBOARD_REQUIRE_BROWSER=1, set by .ci/run after installing Chromium) a missing browser is
 * a failure, never a skip.
 */
export const browserMissing = (): string | undefined => {
  if (existsSync(CHROMIUM)) return undefined
  const why = `no Chromium at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium`
  if (process.env.SWITCHBOARD_REQUIRE_BROWSER === '1')
    throw new Error(`SWITCHBOARD_REQUIRE_BROWSER=1 and ${why}`)
  return why
}

/**
 * Headless Chromium with nothing of its own on the network: this machine's network is closed, and
 * background requests would be refused (or would wait on DNS) at every start.
 */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
