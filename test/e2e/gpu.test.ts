import assert from 'node:assert/strict'
import {mkdtemp, readdir, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {Hex} from 'viem'

import {requireWebgpu} from '../../src/ml/backend/webgpu/requireWebgpu.js'
import type {ProofManifest} from '../../src/ml/checkpoint/manifest.js'
import type {VerificationReport} from '../../src/pol/verifyProof.js'
import {createLocalStore} from '../../src/store/createLocalStore.js'
import {runGensyn} from '../helpers/cli.js'

type Report = {ok: boolean; failures: string[]; disputes: {prover: string; challenger: string; outcome: string; reason: string; question: string}[]; tasks: {verdict: string; testAccuracy: number | null; rejections: {solver: string; slashed: string}[]}[]; conservation: {ok: boolean}}
type Verdict = {type: 'verdict'; accepted: boolean; reportHash: Hex}

/**
 * Runs `devnet up --scenario NAME --until-settled --json` and returns its report (the last JSON line), after
 * checking that it exited 0, that every expectation held and that the task was accepted.
 */
async function settleScenario(name: string, stateDir: string): Promise<Report> {
  const run = await runGensyn(['devnet', 'up', '--scenario', name, '--until-settled', '--json', '--state-dir', stateDir])
  assert.equal(run.exitCode, 0, `devnet failed:\n${run.stderr}\n${run.stdout}`)
  const line = String(run.stdout).trim().split('\n').filter((candidate) => candidate.startsWith('{')).at(-1)
  assert.ok(line, `no JSON on stdout:\n${run.stdout}`)
  const report = JSON.parse(line) as Report
  assert.equal(report.ok, true, report.failures.join('; '))
  assert.equal(report.tasks[0]?.verdict, 'accepted')
  return report
}

type SegmentEvent = {type: 'segment'; match: boolean; hashMatch: boolean}

/** Every JSON event the devnet processes whose names start with `prefix` printed, from their logs. */
async function eventsOf(stateDir: string, prefix: string): Promise<{type?: string}[]> {
  const logs = path.join(stateDir, 'logs')
  const out: {type?: string}[] = []
  for (const file of (await readdir(logs)).filter((name) => name.startsWith(prefix))) {
    for (const line of (await readFile(path.join(logs, file), 'utf8')).split('\n')) if (line.startsWith('{')) out.push(JSON.parse(line) as {type?: string})
  }
  return out
}

/** Every JSON event the verifiers printed, from their logs. */
const verifierEvents = (stateDir: string) => eventsOf(stateDir, 'verifier-')

/** The last JSON object a devnet process (`<stateDir>/logs/<name>.log`) printed. */
async function lastJson<T>(stateDir: string, name: string): Promise<T> {
  const lines = (await readFile(path.join(stateDir, 'logs', `${name}.log`), 'utf8')).split('\n').filter((line) => line.startsWith('{'))
  assert.ok(lines.length > 0, `no JSON in ${name}.log`)
  return JSON.parse(lines.at(-1)!) as T
}

/** The verdicts the verifiers posted. */
async function verdicts(stateDir: string): Promise<Verdict[]> {
  return (await verifierEvents(stateDir)).filter((event): event is Verdict => event.type === 'verdict')
}

describe('devnet with solvers on webgpu and verifiers on wasm (tolerance mode)', function () {
  this.timeout(600_000)
  let stateDir: string

  before(async function () {
    await requireWebgpu(this)
  })
  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-gpu-'))
  })
  afterEach(async () => {
    await rm(stateDir, {recursive: true, force: true})
  })

  it('gpu-solver: a webgpu-trained proof is accepted by a wasm verifier within the thresholds the job pinned, money conserved', async () => {
    const report = await settleScenario('gpu-solver', stateDir)
    assert.equal(report.conservation.ok, true)
    // the job pinned exactly the profile the devnet's poster published: thresholds bind a job only through its pin
    const {posted} = await lastJson<{posted: {profileHash: Hex}}>(stateDir, 'profile-smoke-mlp')
    assert.deepEqual((await lastJson<{profiles?: Hex[]}>(stateDir, 'submitter-1')).profiles, [posted.profileHash])
    const [verdict, ...others] = await verdicts(stateDir)
    assert.equal(others.length, 0)
    assert.equal(verdict?.accepted, true)
    const store = createLocalStore(path.join(stateDir, 'store'))
    const verification = await store.getJson<VerificationReport>(verdict.reportHash)
    assert.equal(verification.mode, 'tolerance')
    assert.equal(verification.runtime?.backend, 'wasm')
    assert.equal((await store.getJson<ProofManifest>(verification.manifestHash)).runtime.backend, 'webgpu')
    assert.ok(verification.segments.length >= 2)
    for (const segment of verification.segments) {
      assert.equal(segment.hashMatch, false, 'wasm does not reproduce webgpu bit for bit')
      assert.equal(segment.match, true)
    }
    // the verifier's own events say so too (its log reads "within the thresholds", not "matches")
    const segments = (await verifierEvents(stateDir)).filter((event): event is SegmentEvent => event.type === 'segment')
    assert.ok(segments.length >= 2)
    for (const segment of segments) assert.deepEqual([segment.match, segment.hashMatch], [true, false])
  })

  it('gpu-cheater: a skip-steps cheater on webgpu is rejected beyond the thresholds and slashed; an honest webgpu solver delivers', async () => {
    const report = await settleScenario('gpu-cheater', stateDir)
    assert.equal(report.tasks[0]?.rejections.length, 1)
    assert.ok(BigInt(report.tasks[0]!.rejections[0]!.slashed) > 0n)
    const posted = await verdicts(stateDir)
    assert.deepEqual(posted.map((verdict) => verdict.accepted).sort(), [false, true])
    const rejected = await createLocalStore(path.join(stateDir, 'store')).getJson<VerificationReport>(posted.find((verdict) => !verdict.accepted)!.reportHash)
    assert.equal(rejected.mode, 'tolerance')
    assert.ok(rejected.segments.some((segment) => (segment.violations ?? []).length > 0))
  })

  it('gpu-colluding: a wasm whistleblower in tolerance mode catches a webgpu cheater its colluding verifier passed, and wins the dispute over the webgpu proof', async () => {
    // the scenario's expectations (in report.ok) hold too: cheater-1 and colluding-verifier-1 slashed, a dispute won by the challenger
    const report = await settleScenario('gpu-colluding', stateDir)
    assert.equal(report.conservation.ok, true)
    const events = await eventsOf(stateDir, 'whistleblower-1')
    const segments = events.filter((event): event is SegmentEvent => event.type === 'segment')
    // its first replay is of the cheater's proof: on wasm, beyond the thresholds the job pinned for webgpu against wasm
    assert.deepEqual([segments[0]?.match, segments[0]?.hashMatch], [false, false])
    assert.equal(events.filter((event) => event.type === 'challenged').length, 1)
    assert.equal(events.some((event) => event.type === 'skipped'), false, 'it re-checked the webgpu proofs instead of skipping them')
    // both parties posted wasm states from the committed start, so the game isolated the segment's last step and the
    // committee judged the committed end by the job's webgpu + wasm thresholds (docs/disputes.md, "Cross-runtime disputes")
    assert.deepEqual(
      report.disputes.map((dispute) => [dispute.prover, dispute.challenger, dispute.outcome, dispute.reason, dispute.question]),
      [['cheater-1', 'whistleblower-1', 'ChallengerWon', 'Committee', 'StateAssembly']],
    )
  })
})
