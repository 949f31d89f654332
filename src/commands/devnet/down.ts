import {Flags} from '@oclif/core'

import {type StoppedDevnet, stopDevnet} from '../../sim/stopDevnet.js'
import {BaseCommand} from '../../ui/baseCommand.js'

export default class DevnetDown extends BaseCommand {
  static override summary = 'Stop the devnet running in the state dir (one started with `devnet up --detach`).'
  static override description =
    'Sends SIGTERM to the devnet process: it stops its actors (each finishes its current step), writes its report to <state-dir>/report.json and stops anvil, which dumps the chain when it runs with --state. Waits until every process in <state-dir>/processes.json is gone; any still alive after --timeout seconds gets SIGKILL. Exit code 1 with a one-line message when no devnet is running.'
  static override examples = [
    {description: 'Stop the devnet in .gensyn', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Stop one, then resume it later from its state file', command: '<%= config.bin %> devnet up --detach --state run.state && <%= config.bin %> <%= command.id %> && <%= config.bin %> devnet up --state run.state --until-settled'},
  ]
  static override flags = {
    'state-dir': Flags.string({description: 'Folder the devnet runs in.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    timeout: Flags.integer({description: 'Seconds the devnet gets to stop cleanly before its processes are killed.', default: 120, min: 1}),
  }

  async run(): Promise<StoppedDevnet> {
    const {flags} = await this.parse(DevnetDown)
    const stopped = await stopDevnet({stateDir: flags['state-dir'], graceMs: flags.timeout * 1000})
    const forced = stopped.killed.length > 0 ? `; killed ${stopped.killed.length} that did not stop in ${flags.timeout} s (pids ${stopped.killed.join(', ')})` : ''
    this.log(`stopped the devnet (pid ${stopped.pid}) and its ${stopped.pids.length - 1} processes in ${stopped.seconds} s${forced}`)
    this.log(`report: ${stopped.report}`)
    if (stopped.stateFile) this.log(`state: ${stopped.stateFile} (resume with \`gensyn devnet up --state ${stopped.stateFile}\`)`)
    return stopped
  }
}
