import {Args, Flags} from '@oclif/core'
import {formatUnits, parseEther} from 'viem'

import {type SolverDisputeStance, solverDisputeStances, runSolver, type SolverEvent} from '../actors/solver.js'
import {type OfflineSolveResult, solveOffline} from '../actors/solveOffline.js'
import {strategyNames, type StrategyName} from '../adversary/index.js'
import {InvalidInputError} from '../errors/base.js'
import type {BackendName} from '../ml/backend/index.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {actorSeedFlag, backendFlag, connectionFlags, threadsFlag} from '../ui/flags.js'
import {setTrainingThreads} from '../ml/train/threads/trainingThreads.js'
import {createProgress, type Progress} from '../ui/progress.js'
import {solverWait} from '../ui/roleWaits.js'
import {describeDisputeEvent, describeSettle} from '../ui/taskView.js'
import {createWaitStatus} from '../ui/waitStatus.js'
import {withInterrupt} from '../ui/withInterrupt.js'

export default class Solve extends BaseCommand {
  static override summary = 'Act as a solver: take open tasks, train them with proof checkpoints, commit the proof.'
  static override description =
    'Registers and stakes as a solver if needed and lists its offer (an ask per work unit and a capacity, docs/market.md) while the market price is at least its ask, withdrawing it when the price falls below and listing it again when the price is back. It claims an open task it may take (the price at most the task\'s max price, below its capacity, the task\'s declared work covering its own estimate, a split task\'s parent settled) (locking the stake and committing to a fresh secret), trains it on the chosen TensorFlow.js backend while storing a checkpoint every k steps, tosses the forced-error coin, and commits the Merkle root of the checkpoints (when the coin says so, a deliberately wrong proof with the honest one sealed, revealed after the challenge window; docs/disputes.md). It disputes a rejection of its honest proof, plays its disputes, and settles its verified tasks. A task claimed before a crash or Ctrl-C resumes from its last checkpoint, with its secret. With --json, each event is one JSON line.'
  static override examples = [
    {description: 'Solve one task on the local devnet as account 2', command: '<%= config.bin %> <%= command.id %> --account 2'},
    {description: 'Keep solving, streaming events as JSON lines', command: '<%= config.bin %> <%= command.id %> --loop --account 2 --json'},
    {description: 'Ask 0.000012 ETH per work unit, two tasks listed at once', command: '<%= config.bin %> <%= command.id %> --loop --account 2 --ask 0.000012 --capacity 2'},
    {description: 'Leave the market after 10 minutes (finishing the task in hand)', command: '<%= config.bin %> <%= command.id %> --loop --account 2 --leave-after 600'},
    {description: 'Train a job with no chain and write a proof bundle', command: '<%= config.bin %> <%= command.id %> --offline fixtures/jobs/mnist-mlp.yaml --out ./proof'},
    {description: 'Play a skip-steps cheater that disputes its rejection and then stops answering', command: '<%= config.bin %> <%= command.id %> --loop --account 3 --strategy skip-steps --dispute-stance staller'},
    {description: 'Write the bundle a forging cheater would (for testing verifiers)', command: '<%= config.bin %> <%= command.id %> --offline fixtures/jobs/mnist-mlp.yaml --out ./forged --strategy forge'},
    {description: 'Solve against any chain where the contracts are deployed', command: '<%= config.bin %> <%= command.id %> --rpc-url http://127.0.0.1:8545 --market 0x… --registry 0x… --private-key $KEY --store /shared/blobs'},
  ]
  static override args = {
    job: Args.string({description: 'With --offline: the job spec (YAML) to train.'}),
  }
  static override flags = {
    ...connectionFlags,
    offline: Flags.boolean({description: 'Train JOB with no chain and write a proof bundle to --out.', exclusive: ['loop', 'max-tasks']}),
    out: Flags.string({description: 'With --offline: the folder to write the proof bundle to.', dependsOn: ['offline']}),
    loop: Flags.boolean({description: 'Keep taking tasks until interrupted.'}),
    'max-tasks': Flags.integer({description: 'Stop after this many tasks (default: 1 without --loop).', min: 1}),
    strategy: Flags.string({
      description: 'Play an adversary (docs/adversaries.md) instead of training honestly: for protocol research and devnet scenarios.',
      options: [...strategyNames],
      default: 'honest',
    }),
    'claim-delay': Flags.integer({description: 'Wait this many milliseconds after first seeing an open task before claiming it.', min: 0, default: 0}),
    'dispute-stance': Flags.string({
      description:
        'How to play a dispute over its proof (docs/adversaries.md): honest replays truthfully, defend stands behind the committed proof, staller disputes a rejection and stops answering after --stall-after rounds. Default: honest for --strategy honest, defend for a cheat.',
      options: [...solverDisputeStances],
    }),
    'stall-after': Flags.integer({description: 'With --dispute-stance staller: dispute rounds answered before it stops.', min: 0, default: 1}),
    ask: Flags.string({
      description: "Its ask in ETH per work unit: it is listed (and claims) only while the market price is at least this. Default: the protocol's price floor, so it is always listed.",
    }),
    capacity: Flags.integer({
      description: 'Tasks at once its offer lists (it trains one at a time, and claims its next while the book counts fewer than this active). Its stake is topped up to this many solverStakes: the book lists no capacity the stake does not back.',
      min: 1,
      max: 64,
      default: 1,
    }),
    'leave-after': Flags.integer({description: 'Withdraw its offer after this many seconds, finish the task in hand and exit.', min: 0}),
    backend: backendFlag,
    threads: threadsFlag,
    seed: actorSeedFlag,
  }

  async run(): Promise<OfflineSolveResult | undefined> {
    const {args, flags} = await this.parse(Solve)
    setTrainingThreads(flags.threads)
    if (flags.offline) return this.solveOffline(args.job, flags.out, flags.backend as BackendName, flags.strategy as StrategyName, flags.json === true)
    if (args.job) throw new InvalidInputError(`job: a job file is only taken with --offline; on a chain the solver takes tasks from the market`)
    // Checked before connecting, so a typo fails at once.
    if (flags.ask !== undefined) parseAsk(flags.ask)
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    let bar: Progress | undefined
    const status = createWaitStatus({enabled: !flags.json, readBlock: () => connection.publicClient.getBlockNumber()})
    const onEvent = (event: SolverEvent) => {
      if (flags.json) return this.emitJsonLine({role: 'solver', ...event})
      describe(event)
      status.update(solverWait(event))
    }
    const describe = (event: SolverEvent) => {
      switch (event.type) {
        case 'ready':
          return this.log(
            `solver ${event.address} ready, backend ${event.runtime}, dispute stance ${event.disputeStance}, ask ${gwei(event.ask)} gwei per work unit, capacity ${event.capacity}`,
          )
        case 'offer-listed':
          return this.log(`offer listed: ask ${gwei(event.ask)} gwei per work unit, capacity ${event.capacity} (price ${gwei(event.price)} gwei)`)
        case 'offer-withdrawn':
          return this.log(event.reason === 'leaving' ? `offer withdrawn: leaving the market` : `offer withdrawn: the price ${gwei(event.price)} gwei is below the ask ${gwei(event.ask)} gwei`)
        case 'leaving':
          return this.log(`leaving the market after ${event.afterSeconds} s: no new claims; exiting once the task in hand is done`)
        case 'expired':
          return this.log(`task ${event.taskId}: expired the claim of ${event.solver} past its training deadline; the task is back in the pool`)
        case 'claimed':
          this.log(`task ${event.taskId}: claimed in block ${event.claimBlock} at ${gwei(event.price)} gwei per work unit`)
          return
        case 'progress':
          bar ??= createProgress({label: `task ${event.taskId} training`, total: event.steps - event.from, enabled: true})
          bar.update(event.step - event.from, `step ${event.step}, loss ${event.loss.toFixed(4)}`)
          return
        case 'coin':
          return event.forced ? this.log(`task ${event.taskId}: forced error: publishing a deliberately wrong proof, the honest one sealed`) : undefined
        case 'committed':
          bar?.stop()
          bar = undefined
          return this.log(
            `task ${event.taskId}: committed proof ${event.proofRoot} (${event.checkpoints} checkpoints, ${event.totalSteps} steps, ${event.trainingSeconds.toFixed(1)} s, runtime ${event.runtime}${event.strategy ? `, strategy ${event.strategy}` : ''}${event.sealedHonestRoot ? `, forced error sealing ${event.sealedHonestRoot}` : ''})`,
          )
        case 'revealed':
          return this.log(`task ${event.taskId}: revealed the forced error; the honest proof ${event.honestRoot} goes to a fresh verification`)
        case 'rejection-disputed':
          return this.log(`task ${event.taskId}: disputed the rejection of segment ${event.segment}`)
        case 'resumed':
          return this.log(`task ${event.taskId}: resuming from the checkpoint at step ${event.step}`)
        case 'settle':
          return this.log(`task ${event.taskId}: settle: ${describeSettle(event.outcome)}`)
        case 'dispute':
          return this.log(`dispute ${event.event.disputeId}: ${describeDisputeEvent(event.event)}`)
        case 'warning':
          return this.warn(`task ${event.taskId}: ${event.message}`)
        case 'lost-race':
          return this.log(`task ${event.taskId}: taken by another solver (${event.reason})`)
        case 'checkpoint':
          return
      }
    }
    await withInterrupt((signal) =>
      runSolver({
        connection,
        backend: flags.backend as BackendName,
        loop: flags.loop,
        maxTasks: flags['max-tasks'],
        claimDelayMs: flags['claim-delay'],
        strategy: flags.strategy as StrategyName,
        disputeStance: flags['dispute-stance'] as SolverDisputeStance | undefined,
        stallAfterRounds: flags['stall-after'],
        ask: flags.ask === undefined ? undefined : parseAsk(flags.ask),
        capacity: flags.capacity,
        leaveAfterSeconds: flags['leave-after'],
        seed: flags.seed,
        signal,
        onEvent,
      }),
    ).finally(() => status.stop())
  }

  private async solveOffline(job: string | undefined, out: string | undefined, backend: BackendName, strategy: StrategyName, json: boolean): Promise<OfflineSolveResult> {
    if (!job) throw new InvalidInputError('job: expected a job spec file with --offline')
    if (!out) throw new InvalidInputError('--out: expected a folder to write the proof bundle to')
    let bar: Progress | undefined
    const result = await withInterrupt((signal) =>
      solveOffline({
        jobPath: job,
        outDir: out,
        backend,
        strategy,
        signal,
        onReady: (runtime) => this.log(`offline solve of ${job}, backend ${runtime}`),
        onWarning: (message) => this.warn(message),
        onStep: (step, steps, loss) => {
          bar ??= createProgress({label: 'training', total: steps, enabled: !json})
          bar.update(step, `loss ${loss.toFixed(4)}`)
        },
      }),
    )
    bar?.stop()
    this.log(`wrote ${result.files} files to ${result.dir}: ${result.checkpoints} checkpoints, root ${result.merkleRoot} (${result.trainingSeconds.toFixed(1)} s)`)
    return result
  }
}

/** --ask in ETH per work unit, as wei. */
function parseAsk(value: string): bigint {
  if (!/^\d+(\.\d{1,18})?$/.test(value)) throw new InvalidInputError(`--ask: expected ETH per work unit as a decimal number, e.g. 0.00001, got ${value}`)
  return parseEther(value)
}

function gwei(wei: bigint): string {
  return formatUnits(wei, 9)
}
