import {Flags} from '@oclif/core'

import {type BackendName, runtimeIdString} from '../ml/backend/index.js'
import {verifyBundle} from '../pol/bundle/index.js'
import {bundleVerificationView, type BundleVerificationView, segmentRow} from '../ui/verificationView.js'
import {renderTable} from '../ui/taskView.js'

import {runVerifier, type VerifierEvent} from '../actors/verifier.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand, ExitCode} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {backendFlag, connectionFlags} from '../ui/flags.js'
import {withInterrupt} from '../ui/withInterrupt.js'

export default class Verify extends BaseCommand {
  static override summary = 'Act as a verifier: replay sampled segments of committed proofs and post verdicts.'
  static override description =
    'Registers and stakes as a verifier if needed. For each committed task (not its own), it waits for a block after the commit, claims the verification (which reveals the randomness that picks the segments), replays each sampled segment from its starting checkpoint, demands a bit-for-bit hash match with the committed checkpoint, and posts the verdict. It settles its tasks after the challenge window. With --json, each event is one JSON line.'
  static override examples = [
    {description: 'Verify one task on the local devnet as account 4', command: '<%= config.bin %> <%= command.id %> --account 4'},
    {description: 'Keep verifying, streaming events as JSON lines', command: '<%= config.bin %> <%= command.id %> --loop --account 4 --json'},
    {description: 'Verify a proof bundle with no chain (exit code 0 accepted, 1 rejected, 2 unusable)', command: '<%= config.bin %> <%= command.id %> --proof ./proof --segments 3 --seed 7'},
  ]
  static override flags = {
    ...connectionFlags,
    proof: Flags.string({description: 'Verify this proof bundle (a folder written by `solve --offline`) with no chain.', exclusive: ['loop', 'max-tasks']}),
    segments: Flags.integer({description: "With --proof: how many segments to replay (default: the job's verification.segments).", min: 1, dependsOn: ['proof']}),
    seed: Flags.string({description: 'With --proof: makes the segment sampling repeatable (default: fresh randomness).', dependsOn: ['proof']}),
    loop: Flags.boolean({description: 'Keep verifying tasks until interrupted.'}),
    'max-tasks': Flags.integer({description: 'Stop after this many verdicts (default: 1 without --loop).', min: 1}),
    backend: backendFlag,
  }

  async run(): Promise<BundleVerificationView | undefined> {
    const {flags} = await this.parse(Verify)
    if (flags.proof) return this.verifyOffline(flags.proof, flags.segments, flags.seed, flags.backend as BackendName, flags.json === true)
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    const onEvent = (event: VerifierEvent) => {
      if (flags.json) return this.emitJsonLine({role: 'verifier', ...event})
      switch (event.type) {
        case 'ready':
          return this.log(`verifier ${event.address} ready, backend ${event.runtime}`)
        case 'claimed':
          return this.log(`task ${event.taskId}: verification claimed, randomness ${event.randomness}`)
        case 'segment':
          return this.log(`task ${event.taskId}: segment ${event.segment} (steps ${event.startStep}-${event.endStep}) ${event.match ? 'matches' : 'DIFFERS'} (${event.seconds.toFixed(1)} s)`)
        case 'verdict':
          return this.log(`task ${event.taskId}: ${event.accepted ? 'accepted' : `rejected (${event.reason ?? 'mismatch'})`}`)
        case 'settled':
          return this.log(`task ${event.taskId}: settled`)
        case 'lost-race':
          return this.log(`task ${event.taskId}: taken by another verifier (${event.reason})`)
        case 'skipped':
          return this.log(`task ${event.taskId}: skipped, ${event.reason}`)
        case 'inconclusive':
          return this.log(`task ${event.taskId}: no verdict posted, ${event.reason}`)
      }
    }
    await withInterrupt((signal) =>
      runVerifier({connection, backend: flags.backend as 'wasm' | 'cpu' | 'gpu', loop: flags.loop, maxTasks: flags['max-tasks'], signal, onEvent}),
    )
  }

  private async verifyOffline(dir: string, segments: number | undefined, seed: string | undefined, backend: BackendName, json: boolean): Promise<BundleVerificationView> {
    const rows: string[][] = []
    const {report, randomness} = await verifyBundle({dir, segments, seed, backend, onSegment: (replay) => rows.push(segmentRow(replay))})
    const view = bundleVerificationView(report, randomness, seed)
    this.log(`randomness ${randomness}${seed === undefined ? '' : ` (seed ${seed})`}, runtime ${report.runtime ? runtimeIdString(report.runtime) : 'n/a'}`)
    this.log(`checks: ${Object.entries(report.checks).map(([check, status]) => `${check} ${status}`).join(', ')}`)
    if (rows.length > 0) this.log(renderTable(['SEGMENT', 'STEPS', 'COMMITTED', 'REPLAYED', 'RESULT', 'SECONDS'], rows))
    this.log(report.accepted ? 'verdict: accepted' : `verdict: ${report.inconclusive ? 'inconclusive' : 'rejected'}: ${report.reason ?? ''}`)
    if (!report.accepted) {
      // oclif prints a returned value only on success, so a rejection prints its own JSON before exiting.
      if (json) this.logJson(view)
      this.exit(report.inconclusive ? ExitCode.invalidInput : ExitCode.failure)
    }
    return view
  }
}
