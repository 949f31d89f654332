import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'

import {repoRoot, runGensyn} from '../helpers/cli.js'

type Manifest = {commands: Record<string, {examples?: unknown[]; flags: Record<string, unknown>}>}

// The manifest is written by `npm run build`; read lazily so other suites still run on an unbuilt tree.
const manifestPath = path.join(repoRoot, 'oclif.manifest.json')
const manifest: Manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest) : {commands: {}}

describe('every command documents itself', function () {
  this.timeout(60_000)
  const ids = Object.keys(manifest.commands)

  it('ships the commands of the foundation', () => {
    assert.ok(existsSync(manifestPath), 'oclif.manifest.json is missing: run npm run build')
    for (const id of ['submit', 'solve', 'verify', 'tasks:list', 'tasks:show', 'models:get', 'devnet:up']) assert.ok(ids.includes(id), `missing ${id}`)
  })

  for (const id of ids) {
    it(`${id}: --help shows examples, and --json is available`, async () => {
      const command = manifest.commands[id]!
      assert.ok((command.examples?.length ?? 0) >= 1, 'no example')
      assert.ok('json' in command.flags, 'no --json flag')
      const run = await runGensyn([...id.split(':'), '--help'])
      assert.equal(run.exitCode, 0, String(run.stderr))
      assert.match(String(run.stdout), /EXAMPLES/)
    })
  }
})
