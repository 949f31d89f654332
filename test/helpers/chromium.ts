import {access, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa} from 'execa'

/** Debian's chromium (`apt-get install chromium`), where .ci/run installs it. */
export const chromiumPath = process.env.GENSYN_CHROMIUM ?? '/usr/bin/chromium'

/**
 * For tests: the chromium binary, or a skip with the reason printed when this machine has none. With
 * GENSYN_REQUIRE_BROWSER=1 (CI, which installs it) a missing browser fails the test instead.
 */
export async function requireChromium(context: {skip(): never}): Promise<string> {
  try {
    await access(chromiumPath)
    return chromiumPath
  } catch {
    const reason = `no chromium at ${chromiumPath} (apt-get install -y chromium, or set GENSYN_CHROMIUM)`
    if (process.env.GENSYN_REQUIRE_BROWSER === '1') throw new Error(`GENSYN_REQUIRE_BROWSER=1: ${reason}`)
    console.log(`      skipped: ${reason}`)
    return context.skip()
  }
}

const headless = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run', '--disable-extensions', '--enable-logging=stderr', '--v=0']

/**
 * Opens a local page in headless chromium, lets its scripts run (virtual time, so no wall-clock wait
 * decides the result) and returns the DOM as the page left it, and every console message it printed.
 */
export async function openInChromium(binary: string, file: string, extra: string[] = []): Promise<{dom: string; console: string[]}> {
  const profile = await mkdtemp(path.join(tmpdir(), 'gensyn-chromium-'))
  try {
    const result = await execa(binary, [...headless, `--user-data-dir=${profile}`, '--virtual-time-budget=30000', ...extra, `file://${path.resolve(file)}`], {reject: false, timeout: 90_000})
    if (result.exitCode !== 0) throw new Error(`chromium exited with ${result.exitCode}: ${result.stderr.split('\n').slice(-5).join('\n')}`)
    const console = result.stderr.split('\n').filter((line) => line.includes(':CONSOLE'))
    return {dom: result.stdout, console}
  } finally {
    await rm(profile, {recursive: true, force: true})
  }
}
