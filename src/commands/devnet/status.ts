import {Flags} from '@oclif/core'

import {type DevnetStatus, readDevnetStatus} from '../../sim/devnetStatus.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {renderTable} from '../../ui/renderTable.js'

export default class DevnetStatusCommand extends BaseCommand {
  static override summary = 'Show whether a devnet runs in the state dir, and its chain, actors and tasks.'
  static override description =
    'Reads <state-dir>/processes.json (written by `gensyn devnet up`, detached or not) and checks every process in it: the devnet, anvil and each actor, alive or not. Then reads the chain: the head block, the contracts and every task by status. Exit code 0 when a devnet is running, 1 with a one-line message when none is.'
  static override examples = [
    {description: 'The devnet in .gensyn', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Is one up? (a script)', command: '<%= config.bin %> <%= command.id %> --state-dir /tmp/run --json | jq .tasksByStatus'},
  ]
  static override flags = {
    'state-dir': Flags.string({description: 'Folder the devnet runs in.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
  }

  async run(): Promise<DevnetStatus> {
    const {flags} = await this.parse(DevnetStatusCommand)
    const status = await readDevnetStatus(flags['state-dir'])
    this.log(`devnet: running (pid ${status.pid}${status.phase === 'starting' ? ', starting' : ''}) in ${status.stateDir}`)
    if (status.rpcUrl) this.log(`rpc: ${status.rpcUrl}${status.chainId === undefined ? '' : ` (chain ${status.chainId})`}`)
    if (status.head) this.log(`head: block ${status.head.block} at ${new Date(status.head.timestamp * 1000).toISOString()}`)
    if (status.stateFile) this.log(`state: ${status.stateFile}`)
    if (status.contracts) this.log(`contracts: ${Object.entries(status.contracts).map(([name, address]) => `${name} ${address}`).join(', ')}`)
    this.log(`anvil: pid ${status.anvil.pid ?? '-'} ${status.anvil.alive ? 'alive' : 'dead'}`)
    if (status.actors.length > 0) {
      this.log(renderTable(['ACTOR', 'ROLE', 'PID', 'STATE'], status.actors.map((actor) => [actor.name, actor.role ?? '-', String(actor.pid ?? '-'), actor.alive ? 'alive' : 'exited'])))
    }
    if (status.tasksByStatus) {
      const counts = Object.entries(status.tasksByStatus).map(([name, count]) => `${count} ${name}`)
      this.log(`tasks: ${counts.length === 0 ? 'none' : counts.join(', ')}`)
    }
    return status
  }
}
