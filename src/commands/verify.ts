import {Flags} from '@oclif/core'

import {readFile} from 'node:fs/promises'

import type {Address, Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {type BackendChoice, runtimeIdString} from '../ml/backend/index.js'
import {loadLocalJob} from '../ml/data/loadLocalJob.js'
import {specHash} from '../ml/spec/index.js'
import {checkpointSchedule} from '../ml/train/index.js'
import {readBundle, verifyBundle, type VerifyBundleParameters} from '../pol/bundle/index.js'
import {parseThresholds, type SamplingStrategy, type Thresholds, type VerificationMode} from '../pol/index.js'
import {planTable, type PlanTable} from '../plan/index.js'
import {bundleVerificationView, type BundleVerificationView, segmentHeader, segmentRow} from '../ui/verificationView.js'
import {describeDisputeEvent, describeSettle} from '../ui/taskView.js'
import {renderTable} from '../ui/renderTable.js'

import {runVerifier, type VerifierEvent} from '../actors/verifier.js'
import {verifierStrategyNames, type VerifierStrategyName} from '../adversary/index.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand, ExitCode} from '../ui/baseCommand.js'
import {parseAddresses} from '../ui/parseAddresses.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {backendFlag, connectionFlags, threadsFlag} from '../ui/flags.js'
import {setTrainingThreads} from '../ml/train/threads/trainingThreads.js'
import {verifierWait} from '../ui/roleWaits.js'
import {createWaitStatus} from '../ui/waitStatus.js'
import {withInterrupt} from '../ui/withInterrupt.js'
import {segmentOutcome} from '../ui/devnetLog.js'

export default class Verify extends BaseCommand {
  static override summary = 'Act as a verifier: replay sampled segments of committed proofs and post verdicts.'
  static override description =
    'Registers and stakes as a verifier if needed. For each committed task (not its own), it waits for a block after the commit, claims the verification (which reveals the randomness that picks the segments), replays each sampled segment from its starting checkpoint, demands a bit-for-bit hash match with the committed checkpoint, and posts the verdict (a rejection names the failing segment and the hash its replay gave). With --proof DIR it verifies a proof bundle with no chain, reading it as hostile input (docs/proof-format.md); --job or --spec-hash binds it to the job it must be for, and without either the verdict says that only internal consistency was checked. It serves on dispute committees it is drawn for, and settles its tasks after the challenge and reveal windows. --strategy lazy or colluding plays an adversary (docs/adversaries.md). With --json, each event is one JSON line.'
  static override examples = [
    {description: 'Verify one task on the local devnet as account 4', command: '<%= config.bin %> <%= command.id %> --account 4'},
    {description: 'Keep verifying, streaming events as JSON lines', command: '<%= config.bin %> <%= command.id %> --loop --account 4 --json'},
    {description: 'Play a lazy verifier that accepts without replaying', command: '<%= config.bin %> <%= command.id %> --loop --account 4 --strategy lazy'},
    {description: "Accept one solver's proofs unchecked, verify the rest honestly", command: '<%= config.bin %> <%= command.id %> --loop --account 4 --strategy colluding --collude-with 0x…'},
    {
      description: 'Verify a proof bundle with no chain, bound to the job it must be for (exit code 0 accepted, 1 rejected or for another job, 2 unusable)',
      command: '<%= config.bin %> <%= command.id %> --proof ./proof --job job.yaml --segments 3 --seed 7',
    },
    {description: 'Bind a bundle to a job by its spec hash (as `gensyn submit` printed it)', command: '<%= config.bin %> <%= command.id %> --proof ./proof --spec-hash 0x…'},
    {description: 'Check only that a bundle is consistent with the spec it carries (says so in its output)', command: '<%= config.bin %> <%= command.id %> --proof ./proof --json'},
    {description: 'Verify a cpu-trained bundle on wasm within profiled distance thresholds', command: '<%= config.bin %> <%= command.id %> --proof ./proof --mode tolerance --thresholds thresholds.json --backend wasm'},
    {description: 'How likely is a cheater who faked 10% of the segments to be caught?', command: '<%= config.bin %> <%= command.id %> --plan --job fixtures/jobs/mnist-mlp.yaml --faked 0.1'},
  ]
  static override flags = {
    ...connectionFlags,
    proof: Flags.string({description: 'Verify this proof bundle (a folder written by `solve --offline`) with no chain.', exclusive: ['loop', 'max-tasks']}),
    segments: Flags.integer({description: "With --proof or --plan: how many segments to replay (default: the job's verification.segments).", min: 1}),
    seed: Flags.string({description: 'With --proof: makes the segment sampling repeatable (default: fresh randomness).', dependsOn: ['proof']}),
    mode: Flags.string({
      description:
        'exact: the replay must hash bit for bit the same, on the proof\'s runtime. tolerance: distances within thresholds (--thresholds with --proof; on chain, the ones `gensyn profile --task` posted), on this backend.',
      options: ['exact', 'tolerance'],
      default: 'exact',
    }),
    thresholds: Flags.string({description: 'With --mode tolerance: a JSON file of distance thresholds (e.g. written by `gensyn profile --out`).'}),
    sampling: Flags.string({description: 'With --proof: how segments are picked (the final one always is).', options: ['uniform', 'top-q'], default: 'uniform'}),
    'top-q': Flags.integer({description: 'With --sampling top-q: how many picks go to the largest committed updates.', min: 0}),
    plan: Flags.boolean({description: 'Print the chance of catching a cheater who faked a share of the segments, instead of verifying.'}),
    job: Flags.string({
      description: 'With --proof: the job the bundle must be for (a bundle for another spec is rejected). With --plan: the job spec that sets the number of segments and the sample size.',
      exclusive: ['spec-hash'],
    }),
    'spec-hash': Flags.string({description: 'With --proof: the spec hash (0x + 64 hex digits) of the job the bundle must be for.', dependsOn: ['proof']}),
    faked: Flags.string({description: 'With --plan: comma-separated shares of faked segments.', default: '0.05,0.1,0.25,0.5'}),
    loop: Flags.boolean({description: 'Keep verifying tasks until interrupted.'}),
    'max-tasks': Flags.integer({description: 'Stop after this many verdicts (default: 1 without --loop).', min: 1}),
    strategy: Flags.string({
      description: "On a chain: honest replays; lazy accepts without replaying; colluding accepts --collude-with solvers' proofs unchecked and verifies the rest honestly (docs/adversaries.md).",
      options: [...verifierStrategyNames],
      default: 'honest',
    }),
    'collude-with': Flags.string({description: 'With --strategy colluding: a partner solver address (repeat for more).', multiple: true}),
    'claim-delay': Flags.integer({description: 'Wait this many milliseconds after first seeing a committed proof before claiming it.', min: 0, default: 0}),
    backend: backendFlag,
    threads: threadsFlag,
  }

  async run(): Promise<BundleVerificationView | PlanTable | undefined> {
    const {flags} = await this.parse(Verify)
    setTrainingThreads(flags.threads)
    if ((flags.proof || flags.plan) && flags.strategy !== 'honest') throw new InvalidInputError(`--strategy: ${flags.strategy} plays on a chain; --proof and --plan take none`)
    if (flags.plan) return this.plan(flags)
    if (flags.proof) {
      return this.verifyOffline({
        dir: flags.proof,
        specHash: await jobSpecHash(flags.job, flags['spec-hash']),
        segments: flags.segments,
        seed: flags.seed,
        backend: flags.backend as BackendChoice,
        mode: flags.mode as VerificationMode,
        thresholds: flags.thresholds === undefined ? undefined : await readThresholds(flags.thresholds),
        sampling: {strategy: flags.sampling as SamplingStrategy, topQ: flags['top-q']},
        json: flags.json === true,
      })
    }
    const colludeWith = collusionPartners(flags.strategy, flags['collude-with'])
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    const status = createWaitStatus({enabled: !flags.json, readBlock: () => connection.publicClient.getBlockNumber()})
    const onEvent = (event: VerifierEvent) => {
      if (flags.json) return this.emitJsonLine({role: 'verifier', ...event})
      describe(event)
      status.update(verifierWait(event))
    }
    const describe = (event: VerifierEvent) => {
      switch (event.type) {
        case 'ready':
          return this.log(`verifier ${event.address} ready, backend ${event.runtime}${event.strategy === 'honest' ? '' : `, strategy ${event.strategy}`}`)
        case 'claimed':
          return this.log(`task ${event.taskId}: verification claimed, randomness ${event.randomness}`)
        case 'segment':
          return this.log(`task ${event.taskId}: segment ${event.segment} (steps ${event.startStep}-${event.endStep}) ${segmentOutcome(event)} (${event.seconds.toFixed(1)} s)`)
        case 'verdict':
          if (!event.replayed) return this.log(`task ${event.taskId}: accepted without replaying (${event.reason ?? 'strategy'})`)
          return this.log(`task ${event.taskId}: ${event.accepted ? 'accepted' : `rejected at segment ${event.segment}, replay ${event.replayHash} (${event.reason ?? 'mismatch'})`}`)
        case 'settle':
          return this.log(`task ${event.taskId}: settle: ${describeSettle(event.outcome)}`)
        case 'dispute':
          return this.log(`dispute ${event.event.disputeId}: ${describeDisputeEvent(event.event)}`)
        case 'lost-race':
          return this.log(`task ${event.taskId}: taken by another verifier (${event.reason})`)
        case 'skipped':
          return this.log(`task ${event.taskId}: skipped, ${event.reason}`)
        case 'inconclusive':
          return this.log(`task ${event.taskId}: no verdict posted, ${event.reason}`)
        case 'warning':
          return this.warn(`task ${event.taskId}: ${event.message}`)
      }
    }
    await withInterrupt((signal) =>
      runVerifier({
        connection,
        backend: flags.backend as BackendChoice,
        mode: flags.mode as VerificationMode,
        strategy: flags.strategy as VerifierStrategyName,
        colludeWith,
        claimDelayMs: flags['claim-delay'],
        loop: flags.loop,
        maxTasks: flags['max-tasks'],
        signal,
        onEvent,
      }),
    ).finally(() => status.stop())
  }

  private async verifyOffline(options: VerifyBundleParameters & {json: boolean}): Promise<BundleVerificationView> {
    const {json, seed, ...parameters} = options
    const rows: string[][] = []
    const {report, randomness, jobSpecHash} = await verifyBundle({...parameters, seed, onSegment: (replay) => rows.push(segmentRow(replay))})
    const view = bundleVerificationView(report, randomness, seed, jobSpecHash)
    this.log(jobSpecHash === undefined ? `note: ${view.notice ?? ''}` : `job: spec hash ${jobSpecHash}`)
    this.log(`randomness ${randomness}${seed === undefined ? '' : ` (seed ${seed})`}, runtime ${report.runtime ? runtimeIdString(report.runtime) : 'n/a'}`)
    this.log(`checks: ${Object.entries(report.checks).map(([check, status]) => `${check} ${status}`).join(', ')}`)
    if (rows.length > 0) this.log(renderTable(segmentHeader, rows))
    this.log(report.accepted ? 'verdict: accepted' : `verdict: ${report.inconclusive ? 'inconclusive' : 'rejected'}: ${report.reason ?? ''}`)
    if (!report.accepted) {
      // oclif prints a returned value only on success, so a rejection prints its own JSON before exiting.
      if (json) this.logJson(view)
      this.exit(report.inconclusive ? ExitCode.invalidInput : ExitCode.failure)
    }
    return view
  }

  private async plan(flags: {job?: string | undefined; proof?: string | undefined; segments?: number | undefined; faked: string}): Promise<PlanTable> {
    const spec = flags.job ? await loadLocalJob(flags.job) : flags.proof ? (await readBundle(flags.proof)).spec : undefined
    if (!spec) throw new InvalidInputError('--job: expected a job spec (or --proof DIR) to plan for')
    const fakedFractions = flags.faked.split(',').map((part) => Number(part.trim()))
    if (fakedFractions.some((fraction) => !(fraction > 0 && fraction <= 1))) {
      throw new InvalidInputError(`--faked: expected shares in (0, 1] separated by commas, got "${flags.faked}"`)
    }
    const table = planTable({
      segmentCount: checkpointSchedule(spec).length - 1,
      sampled: flags.segments ?? spec.verification.segments,
      fakedFractions,
    })
    this.log(`${table.segmentCount} segments, ${table.sampled} replayed (the final one always): ${((table.sampled / table.segmentCount) * 100).toFixed(1)}% of the training`)
    this.log(
      renderTable(
        ['FAKED', 'SEGMENTS FAKED', 'P(CAUGHT)', 'REPLAYS FOR 99%'],
        table.rows.map((row) => [`${(row.fakedFraction * 100).toFixed(1)}%`, String(row.faked), row.detection.toFixed(4), String(row.segmentsFor99 ?? '-')]),
      ),
    )
    return table
  }
}

/** --collude-with addresses, checked: only a colluding verifier has partners, and it needs at least one. */
function collusionPartners(strategy: string, partners: string[] | undefined): Address[] {
  const list = partners ?? []
  if (strategy !== 'colluding' && list.length > 0) throw new InvalidInputError(`--collude-with: only taken with --strategy colluding, got --strategy ${strategy}`)
  if (strategy === 'colluding' && list.length === 0) throw new InvalidInputError('--collude-with: expected a partner solver address with --strategy colluding')
  return parseAddresses('--collude-with', list)
}

/** The spec hash a --proof bundle must match: --job's (loaded as solve --offline loads it), --spec-hash, or none. */
async function jobSpecHash(job: string | undefined, given: string | undefined): Promise<Hex | undefined> {
  if (job !== undefined) return specHash(await loadLocalJob(job))
  if (given === undefined) return undefined
  if (!/^0x[0-9a-fA-F]{64}$/.test(given)) throw new InvalidInputError(`--spec-hash: expected 0x followed by 64 hex digits, got ${JSON.stringify(given)}`)
  return given.toLowerCase() as Hex
}

async function readThresholds(file: string): Promise<Thresholds> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    throw new InvalidInputError(`--thresholds: file not found: ${file}`)
  }
  try {
    const raw = JSON.parse(text) as {thresholds?: unknown}
    // Accept a bare thresholds object or a `gensyn profile --json` result that carries one.
    return parseThresholds(raw && typeof raw === 'object' && 'thresholds' in raw ? raw.thresholds : raw)
  } catch (error) {
    if (error instanceof SyntaxError) throw new InvalidInputError(`--thresholds: ${file} is not JSON`)
    throw error
  }
}
