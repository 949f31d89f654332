/**
 * Runs every shipped scenario (fixtures/scenarios/*.yaml), or the ones named, with `gensyn devnet up
 * --until-settled --json`, each in its own state dir, and prints one line per scenario: whether all of its
 * expectations held, how long it took, and the failures. Exit code 1 if any failed.
 *
 *   npm run scenarios                        # all of them, two at a time
 *   npm run scenarios -- cheaters dropout     # some of them
 *   npm run scenarios -- --jobs 1             # one at a time (timings without contention)
 */
import {mkdtemp, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {execa} from 'execa'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const scenarioDir = path.join(root, 'fixtures', 'scenarios')
const args = process.argv.slice(2)
const jobsAt = args.indexOf('--jobs')
const jobs = jobsAt === -1 ? 2 : Number(args.splice(jobsAt, 2)[1])
if (!Number.isInteger(jobs) || jobs < 1) throw new Error('--jobs: expected a positive integer')
const shipped = (await readdir(scenarioDir)).filter((name) => name.endsWith('.yaml')).map((name) => name.replace(/\.yaml$/, ''))
const wanted = args.length > 0 ? args : shipped.sort()
for (const name of wanted) if (!shipped.includes(name)) throw new Error(`${name}: expected one of ${shipped.join(', ')}`)

type Outcome = {name: string; ok: boolean; seconds: number; failures: string[]; stateDir: string}

async function runOne(name: string): Promise<Outcome> {
  const stateDir = await mkdtemp(path.join(tmpdir(), `gensyn-scenario-${name}-`))
  const started = performance.now()
  const run = await execa(process.execPath, [path.join(root, 'bin', 'run.js'), 'devnet', 'up', '--scenario', path.join(scenarioDir, `${name}.yaml`), '--until-settled', '--json', '--state-dir', stateDir], {
    reject: false,
    env: {FORCE_COLOR: '0'},
  })
  const seconds = (performance.now() - started) / 1000
  const line = String(run.stdout).trim().split('\n').filter((candidate) => candidate.startsWith('{')).at(-1)
  let report: {ok?: boolean; failures?: string[]; error?: {message: string}} = {}
  try {
    report = JSON.parse(line ?? '{}') as typeof report
  } catch {
    report = {}
  }
  const failures = report.failures ?? [report.error?.message ?? String(run.stderr).trim().split('\n').at(-1) ?? 'no report']
  return {name, ok: run.exitCode === 0 && report.ok === true, seconds, failures, stateDir}
}

const queue = [...wanted]
const outcomes: Outcome[] = []
await Promise.all(
  Array.from({length: Math.min(jobs, queue.length)}, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const outcome = await runOne(name)
      outcomes.push(outcome)
      console.log(`${outcome.ok ? 'ok  ' : 'FAIL'} ${name.padEnd(16)} ${outcome.seconds.toFixed(0).padStart(4)} s  ${outcome.ok ? '' : outcome.failures.join('; ')}  (${outcome.stateDir})`)
    }
  }),
)
const failed = outcomes.filter((outcome) => !outcome.ok)
console.log(`${outcomes.length - failed.length}/${outcomes.length} scenarios passed their own expectations`)
process.exitCode = failed.length === 0 ? 0 : 1
