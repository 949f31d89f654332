import {Flags} from '@oclif/core'

import {runSolver, type SolverEvent} from '../actors/solver.js'
import {connect, requireSigner} from '../protocol/connect.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {connectOptionsFrom} from '../ui/connectOptions.js'
import {backendFlag, connectionFlags} from '../ui/flags.js'
import {createProgress, type Progress} from '../ui/progress.js'
import {withInterrupt} from '../ui/withInterrupt.js'

export default class Solve extends BaseCommand {
  static override summary = 'Act as a solver: take open tasks, train them with proof checkpoints, commit the proof.'
  static override description =
    'Registers and stakes as a solver if needed, claims an open task (locking the stake), trains it on the chosen TensorFlow.js backend while storing a checkpoint every k steps, and commits the Merkle root of the checkpoints. A task claimed before a crash or Ctrl-C resumes from its last checkpoint. With --json, each event is one JSON line.'
  static override examples = [
    {description: 'Solve one task on the local devnet as account 2', command: '<%= config.bin %> <%= command.id %> --account 2'},
    {description: 'Keep solving, streaming events as JSON lines', command: '<%= config.bin %> <%= command.id %> --loop --account 2 --json'},
    {description: 'Solve against any chain where the contracts are deployed', command: '<%= config.bin %> <%= command.id %> --rpc-url http://127.0.0.1:8545 --market 0x… --registry 0x… --private-key $KEY --store /shared/blobs'},
  ]
  static override flags = {
    ...connectionFlags,
    loop: Flags.boolean({description: 'Keep taking tasks until interrupted.'}),
    'max-tasks': Flags.integer({description: 'Stop after this many tasks (default: 1 without --loop).', min: 1}),
    backend: backendFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Solve)
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    let bar: Progress | undefined
    const onEvent = (event: SolverEvent) => {
      if (flags.json) return this.emitJsonLine({role: 'solver', ...event})
      switch (event.type) {
        case 'ready':
          return this.log(`solver ${event.address} ready, backend ${event.runtime}`)
        case 'claimed':
          this.log(`task ${event.taskId}: claimed`)
          return
        case 'progress':
          bar ??= createProgress({label: `task ${event.taskId} training`, total: event.steps, enabled: true})
          bar.update(event.step, `loss ${event.loss.toFixed(4)}`)
          return
        case 'committed':
          bar?.stop()
          bar = undefined
          return this.log(`task ${event.taskId}: committed proof ${event.proofRoot} (${event.checkpoints} checkpoints, ${event.trainingSeconds.toFixed(1)} s, runtime ${event.runtime})`)
        case 'settled':
          return this.log(`task ${event.taskId}: settled`)
        case 'lost-race':
          return this.log(`task ${event.taskId}: taken by another solver (${event.reason})`)
        case 'checkpoint':
          return
      }
    }
    await withInterrupt((signal) =>
      runSolver({connection, backend: flags.backend as 'wasm' | 'cpu' | 'gpu', loop: flags.loop, maxTasks: flags['max-tasks'], signal, onEvent}),
    )
  }
}
