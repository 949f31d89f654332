import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {execa} from 'execa'

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

describe("oclif's habits: -h, version, did-you-mean, autocomplete (the built CLI)", function () {
  this.timeout(60_000)

  it('-h is --help', async () => {
    const [short, long] = await Promise.all([runGensyn(['tasks', 'list', '-h']), runGensyn(['tasks', 'list', '--help'])])
    assert.equal(short.exitCode, 0, String(short.stderr))
    assert.equal(String(short.stdout), String(long.stdout))
  })

  it('version, --version and -v print the name, version and platform', async () => {
    const {version} = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {version: string}
    for (const args of [['version'], ['--version'], ['-v']]) {
      const run = await runGensyn(args)
      assert.equal(run.exitCode, 0, `${args.join(' ')}: ${String(run.stderr)}`)
      assert.match(String(run.stdout), new RegExp(`^gensyn/${version.replaceAll('.', '\\.')} \\S+ node-v\\d+`))
    }
  })

  it('an unknown command is named in one line with exit 127 and no stack trace', async () => {
    const run = await runGensyn(['taks', 'list'])
    assert.equal(run.exitCode, 127)
    assert.match(String(run.stderr), /taks list is not a gensyn command/)
    assert.doesNotMatch(String(run.stderr), /\n\s+at /)
  })

  it('reads ETH_RPC_URL as the RPC URL, after --rpc-url and GENSYN_RPC_URL', async () => {
    const key = `0x${'ab'.repeat(32)}`
    const deployTo = async (env: Record<string, string>, args: string[] = []) => {
      const run = await runGensyn(['deploy', '--private-key', key, ...args], {env: {FORCE_COLOR: '0', ...env}})
      assert.equal(run.exitCode, 1, String(run.stderr))
      return /cannot reach the chain at (\S+):/.exec(String(run.stderr))?.[1]
    }
    // Nothing listens on port 1, so each run names the URL it used and stops there.
    assert.equal(await deployTo({ETH_RPC_URL: 'http://127.0.0.1:1'}), 'http://127.0.0.1:1')
    assert.equal(await deployTo({ETH_RPC_URL: 'http://127.0.0.1:1', GENSYN_RPC_URL: 'http://127.0.0.1:2'}), 'http://127.0.0.1:2')
    assert.equal(await deployTo({ETH_RPC_URL: 'http://127.0.0.1:1'}, ['--rpc-url', 'http://127.0.0.1:3']), 'http://127.0.0.1:3')
  })

  it('autocomplete: bash completes commands from the cache it builds', async () => {
    const cache = await mkdtemp(path.join(tmpdir(), 'gensyn-autocomplete-'))
    try {
      const env = {FORCE_COLOR: '0', XDG_CACHE_HOME: cache}
      const build = await runGensyn(['autocomplete', 'bash'], {env})
      assert.equal(build.exitCode, 0, String(build.stderr))
      const setup = path.join(cache, 'gensyn', 'autocomplete', 'bash_setup')
      // What bash does on TAB: the words so far in COMP_WORDS, the completion function fills COMPREPLY.
      const complete = async (line: string) => {
        const words = line.split(' ')
        const script = `source ${setup}; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=\${#COMP_LINE}; _gensyn_autocomplete; echo "\${COMPREPLY[@]}"`
        return String((await execa('bash', ['-c', script])).stdout).trim()
      }
      assert.equal(await complete('gensyn tasks l'), 'list')
      assert.match(await complete('gensyn dev'), /^devnet/)
    } finally {
      await rm(cache, {recursive: true, force: true})
    }
  })
})
