import {Flags} from '@oclif/core'
import {formatEther, parseEther} from 'viem'

import {type ChallengeOnceEvent, type ChallengeOnceResult, challengeOnce} from '../actors/challengeOnce.js'
import {runWhistleblower, type WhistleblowerEvent, type WhistleblowerStrategy, whistleblowerStrategies} from '../actors/whistleblower.js'
import {InvalidInputError} from '../errors/base.js'
import {runtimeIdString, selectBackend} from '../ml/backend/index.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {actorSeedFlag, connectionFlags, threadsFlag} from '../ui/flags.js'
import {setTrainingThreads} from '../ml/train/threads/trainingThreads.js'
import {parseTaskId} from '../ui/parseTaskId.js'
import {describeDisputeEvent, describeSettle} from '../ui/taskView.js'
import {challengeOnceWait, whistleblowerWait} from '../ui/roleWaits.js'
import {createWaitStatus} from '../ui/waitStatus.js'
import {withInterrupt} from '../ui/withInterrupt.js'

export default class Challenge extends BaseCommand {
  static override summary = 'Act as a whistleblower: re-check accepted verdicts in their challenge window and challenge a wrong proof.'
  static override description =
    'Registers as a whistleblower and stakes one challenge deposit if needed. --task ID re-checks that task now: it replays its segments (all of them up to 8, else --segments random ones) in exact mode on the proof\'s runtime (with --mode tolerance, on wasm, and a proof made elsewhere, such as on a GPU this machine lacks, is judged within the thresholds its job pins for the two runtimes) and, at the first end hash that differs from the committed checkpoint (or end beyond those thresholds), challenges it with the hash its replay gave: it commits to the claim in the challenge window (only a hash goes on chain, so nobody can copy it), waits for the window to close and opens it (a rerun after a crash in between reads its commitment back from the chain and opens it); --wait then plays the pinpoint dispute (docs/disputes.md) and pumps settle until the market applied the outcome. --loop plays the litepaper strategy: it joins the active whistleblowers while fewer than --max-active are, checks a random accepted task in its challenge window, challenges on a mismatch, plays its disputes and leaves when the count rises above --max-active. With --json, --loop prints each event as one JSON line.'
  static override examples = [
    {description: 'Re-check task 3 now and challenge it if a segment does not replay', command: '<%= config.bin %> <%= command.id %> --task 3 --account 6'},
    {description: 'The same, then play the dispute to its outcome', command: '<%= config.bin %> <%= command.id %> --task 3 --account 6 --wait'},
    {description: 'Watch the market as one of at most 2 active whistleblowers', command: '<%= config.bin %> <%= command.id %> --loop --max-active 2 --account 6'},
    {description: 'Re-check on wasm, proofs trained on a GPU included, within their jobs\' pinned thresholds', command: '<%= config.bin %> <%= command.id %> --loop --mode tolerance --account 6'},
    {description: 'Play a griefer that challenges correct work (it loses its deposit)', command: '<%= config.bin %> <%= command.id %> --loop --strategy griefer --account 7 --json'},
  ]
  static override flags = {
    ...connectionFlags,
    threads: threadsFlag,
    task: Flags.string({description: 'Re-check this task now and challenge it on a mismatch.', exclusive: ['loop']}),
    wait: Flags.boolean({description: 'With --task: play the dispute and settle until the challenge is decided.', dependsOn: ['task']}),
    loop: Flags.boolean({description: 'Keep watching the market until interrupted (the litepaper strategy).'}),
    'max-active': Flags.integer({description: 'With --loop: join while fewer whistleblowers than this are active, leave when more are.', min: 1, default: 3}),
    'check-cost': Flags.string({
      description: 'With --loop: what re-checking one task costs you, in ETH. You join only while your share of the expected jackpot (min(jackpot, cap) × forced-error rate / active whistleblowers) covers it, and leave when it no longer does (docs/economics.md).',
      default: '0',
    }),
    strategy: Flags.string({
      description: 'With --loop: honest replays; griefer challenges accepted tasks with made-up hashes (docs/adversaries.md).',
      options: [...whistleblowerStrategies],
      default: 'honest',
    }),
    segments: Flags.integer({description: 'Segments replayed per task when its proof has more than 8.', min: 1, default: 2}),
    mode: Flags.string({
      description:
        "exact: re-check on the proof's runtime, bit for bit, and skip a proof whose runtime is not here. tolerance: re-check on wasm, as a tolerance-mode verifier does: bit for bit a proof made on wasm, and a proof made elsewhere (a GPU's) within the thresholds its job pins for the two runtimes (skipped when the job pins none).",
      options: ['exact', 'tolerance'],
      default: 'exact',
    }),
    backend: Flags.string({
      description: 'Backend for replays. Re-checks replay exactly on the proof\'s runtime (or, with --mode tolerance, on this backend) and disputes always re-execute on wasm, the reproducible runtime, so wasm is the only choice.',
      options: ['wasm'],
      default: 'wasm',
    }),
    seed: actorSeedFlag,
  }

  async run(): Promise<ChallengeOnceResult | undefined> {
    const {flags} = await this.parse(Challenge)
    setTrainingThreads(flags.threads)
    if (!flags.task && !flags.loop) throw new InvalidInputError('--task: expected a task id to re-check, or --loop to watch the market')
    if (flags.task !== undefined && flags.strategy !== 'honest') throw new InvalidInputError(`--strategy: ${flags.strategy} plays with --loop only`)
    const taskId = flags.task === undefined ? undefined : parseTaskId(flags.task.trim())
    if (!/^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/.test(flags['check-cost'])) throw new InvalidInputError(`--check-cost: expected a decimal ETH amount like "0.01", got "${flags['check-cost']}"`)
    const checkCost = parseEther(flags['check-cost'])
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    const json = flags.json === true
    const runtime = runtimeIdString(await selectBackend('wasm'))
    if (json && flags.loop) this.emitJsonLine({role: 'whistleblower', type: 'backend', runtime})
    else if (!json) this.log(`backend ${runtime}`)

    const tolerance = flags.mode === 'tolerance' ? {backend: 'wasm' as const} : undefined
    const status = createWaitStatus({enabled: !json, readBlock: () => connection.publicClient.getBlockNumber()})
    if (taskId !== undefined) {
      const result = await withInterrupt((signal) =>
        challengeOnce({
          connection,
          taskId,
          wait: flags.wait,
          segmentsToCheck: flags.segments,
          tolerance,
          seed: flags.seed,
          signal,
          // Progress is one line per replayed segment and per dispute move (none with --json: stdout is the result).
          onEvent: (event) => {
            if (json) return
            this.describeOnce(event)
            status.update(challengeOnceWait(event, flags.wait))
          },
        }),
      ).finally(() => status.stop())
      if (!result.challenged) this.log(`task ${taskId}: ${result.checked.length} segment(s) replayed, every one matches: nothing to challenge`)
      else if (result.outcome) this.log(`task ${taskId}: dispute ${result.disputeId} ended ${result.outcome}, the task is ${result.status}`)
      return result
    }

    await withInterrupt((signal) =>
      runWhistleblower({
        connection,
        loop: true,
        maxActive: flags['max-active'],
        checkCost,
        segmentsToCheck: flags.segments,
        tolerance,
        strategy: flags.strategy as WhistleblowerStrategy,
        seed: flags.seed,
        signal,
        onEvent: (event) => {
          if (json) return this.emitJsonLine({role: 'whistleblower', ...event})
          this.describeLoop(event)
          status.update(whistleblowerWait(event))
        },
      }),
    ).finally(() => status.stop())
    return undefined
  }

  private describeOnce(event: ChallengeOnceEvent): void {
    switch (event.type) {
      case 'segment':
        return this.log(`task ${event.taskId}: segment ${event.segment} (steps ${event.startStep}-${event.endStep}) ${event.match ? 'matches' : 'DIFFERS'} (${event.seconds.toFixed(1)} s)`)
      case 'committed':
        return this.log(`task ${event.taskId}: committed to a challenge (queue position ${event.index}); opening it once the challenge window closes`)
      case 'challenged':
        return this.log(`task ${event.taskId}: opened: challenged segment ${event.segment} with ${event.claimedEndHash} (queue position ${event.index})`)
      case 'settle':
        return this.log(`task ${event.taskId}: ${describeSettle(event.outcome)}`)
      case 'dispute':
        return this.log(`task ${event.taskId}: dispute ${event.event.disputeId}: ${describeDisputeEvent(event.event)}`)
    }
  }

  private describeLoop(event: WhistleblowerEvent): void {
    switch (event.type) {
      case 'ready':
        return this.log(`whistleblower ${event.address} ready (${event.strategy})`)
      case 'joined':
        return this.log(`joined the active whistleblowers (${event.active} active)`)
      case 'left':
        return this.log(`left the active whistleblowers (${event.active} active)`)
      case 'decision':
        return this.log(`${event.action}: ${event.reason} (jackpot ${formatEther(event.jackpot)} ETH, cap ${formatEther(event.jackpotCap)}, forced errors ${event.forcedErrorBps} bps)`)
      case 'checking':
        return this.log(`task ${event.taskId}: re-checking`)
      case 'segment':
        return this.log(`task ${event.taskId}: segment ${event.segment} (steps ${event.startStep}-${event.endStep}) ${event.match ? 'matches' : 'DIFFERS'}`)
      case 'clean':
        return this.log(`task ${event.taskId}: segments ${event.segments.join(', ')} match`)
      case 'skipped':
        return this.log(`task ${event.taskId}: skipped, ${event.reason}`)
      case 'committed':
        return this.log(`task ${event.taskId}: committed to a challenge (queue position ${event.index})`)
      case 'challenged':
        return this.log(`task ${event.taskId}: opened: challenged segment ${event.segment} with ${event.claimedEndHash}`)
      case 'lost-race':
        return this.log(`task ${event.taskId}: not challenged (${event.reason})`)
      case 'settle':
        return this.log(`task ${event.taskId}: ${describeSettle(event.outcome)}`)
      case 'dispute':
        return this.log(`task ${event.taskId}: dispute ${event.event.disputeId}: ${describeDisputeEvent(event.event)}`)
      case 'expired':
        return this.log(`task ${event.taskId}: expired: solver ${event.solver} missed its training deadline, the task is back in the pool`)
    }
  }
}
