import assert from 'node:assert/strict'
import path from 'node:path'

import {execa} from 'execa'

import {repoRoot, runGensyn} from '../helpers/cli.js'

// SGR sequences that colour or style text: a foreground or background colour (ESC[3xm, ESC[4xm, ESC[9xm), bold
// (ESC[1m), dim, inverse. Cursor movement (ESC[2K, ESC[1A) is not colour and may stay.
const STYLE = /\u001B\[(?:[0-9;]*;)?(?:1|2|7|3[0-7]|4[0-7]|9[0-7]|38;[0-9;]+|48;[0-9;]+)m/

/** Colour forced on, as on a colour terminal, plus whatever the case adds. */
const forced = (env: Record<string, string> = {}) => ({env: {FORCE_COLOR: '1', ...env}})

describe('NO_COLOR and --no-color turn off every colour (the built CLI)', function () {
  this.timeout(60_000)

  it("--help: styled with colour forced on, plain with NO_COLOR=1 or --no-color, and --no-color is listed", async () => {
    const [coloured, noColorEnv, noColorFlag] = await Promise.all([
      runGensyn(['tasks', 'list', '--help'], forced()),
      runGensyn(['tasks', 'list', '--help'], forced({NO_COLOR: '1'})),
      runGensyn(['tasks', 'list', '--help', '--no-color'], forced()),
    ])
    for (const run of [coloured, noColorEnv, noColorFlag]) assert.equal(run.exitCode, 0, String(run.stderr))
    assert.match(String(coloured.stdout), STYLE, 'the control: colour forced on styles the help')
    assert.doesNotMatch(String(noColorEnv.stdout), STYLE)
    assert.doesNotMatch(String(noColorFlag.stdout), STYLE)
    assert.match(String(noColorEnv.stdout), /--no-color +No ANSI colours/)
  })

  it('an empty NO_COLOR is no request (no-color.org): colour stays', async () => {
    const run = await runGensyn(['tasks', 'list', '--help'], forced({NO_COLOR: ''}))
    assert.match(String(run.stdout), STYLE)
  })

  it("every command takes --no-color, oclif's own (version) included, and it reaches no command as an argument", async () => {
    const [version, parseError] = await Promise.all([
      runGensyn(['version', '--no-color'], forced()),
      // A bad flag value after --no-color: the error names the flag at fault, not --no-color.
      runGensyn(['tasks', 'show', '--no-color', 'x'], forced()),
    ])
    assert.equal(version.exitCode, 0, String(version.stderr))
    assert.match(String(version.stdout), /^gensyn\//)
    assert.equal(parseError.exitCode, 2, String(parseError.stderr))
    assert.doesNotMatch(String(parseError.stderr), /no-color/)
    assert.doesNotMatch(String(parseError.stderr), STYLE)
  })

  it('the live dashboard (ink) draws its frame without colour under NO_COLOR or --no-color', async () => {
    const child = path.join(repoRoot, 'test/fixtures/dashboard-frame-child.ts')
    const frame = async (env: Record<string, string>, args: string[] = []) => {
      const run = await execa(process.execPath, ['--import', 'tsx', child, ...args], {cwd: repoRoot, env: {FORCE_COLOR: '1', ...env}, reject: false})
      assert.equal(run.exitCode, 0, String(run.stderr))
      assert.match(String(run.stdout), /gensyn devnet · smoke/)
      return String(run.stdout)
    }
    const [coloured, noColorEnv, noColorFlag] = await Promise.all([frame({}), frame({NO_COLOR: '1'}), frame({}, ['--no-color'])])
    assert.match(coloured, STYLE, 'the control: colour forced on styles the header')
    assert.doesNotMatch(noColorEnv, STYLE)
    assert.doesNotMatch(noColorFlag, STYLE)
  })
})
