import {Flags} from '@oclif/core'


import {connect} from '../../protocol/connect.js'
import {disputePhases} from '../../protocol/disputeTypes.js'
import {listDisputes} from '../../protocol/listDisputes.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {disputeHeader, disputeRow, disputeToJson} from '../../ui/disputeView.js'
import {connectionFlags} from '../../ui/flags.js'
import {parseAddress} from '../../ui/parseAddresses.js'
import {parseTaskId} from '../../ui/parseTaskId.js'
import {renderTable} from '../../ui/renderTable.js'

export default class DisputesList extends BaseCommand {
  static override summary = 'List the pinpoint disputes: phase, rounds, the range still disputed, outcome.'
  static override examples = [
    {description: 'Every dispute on the local devnet', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Disputes still being played, as JSON', command: '<%= config.bin %> <%= command.id %> --open --json'},
    {description: "One task's disputes", command: '<%= config.bin %> <%= command.id %> --task 3'},
  ]
  static override flags = {
    ...connectionFlags,
    open: Flags.boolean({description: 'Only disputes not resolved yet.'}),
    task: Flags.string({description: 'Only disputes over this task.'}),
    party: Flags.string({description: 'Only disputes in which this address is the prover or the challenger.'}),
    phase: Flags.string({description: 'Only disputes in this phase.', options: disputePhases.filter((phase) => phase !== 'None'), multiple: true}),
  }

  async run(): Promise<Record<string, unknown>[]> {
    const {flags} = await this.parse(DisputesList)
    const taskId = flags.task === undefined ? undefined : parseTaskId(flags.task)
    const party = parseAddress('--party', flags.party)
    const connection = await connect(connectOptionsFrom(flags))
    const disputes = await listDisputes(connection, {open: flags.open, taskId, party, phases: flags.phase as never})
    if (disputes.length === 0) this.log('no disputes')
    else this.log(renderTable(disputeHeader, disputes.map(disputeRow)))
    return disputes.map((dispute) => disputeToJson(dispute))
  }
}
