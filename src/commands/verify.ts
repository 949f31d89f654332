import {Flags} from '@oclif/core'

import {runVerifier, type VerifierEvent} from '../actors/verifier.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand} from '../ui/baseCommand.js'
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
  ]
  static override flags = {
    ...connectionFlags,
    loop: Flags.boolean({description: 'Keep verifying tasks until interrupted.'}),
    'max-tasks': Flags.integer({description: 'Stop after this many verdicts (default: 1 without --loop).', min: 1}),
    backend: backendFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Verify)
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
}
