import {Args} from '@oclif/core'

import {InvalidInputError} from '../../errors/base.js'
import {connect} from '../../protocol/connect.js'
import {committeeOf, getDispute} from '../../protocol/getDispute.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {disputeToJson} from '../../ui/disputeView.js'
import {renderTable} from '../../ui/renderTable.js'
import {connectionFlags} from '../../ui/flags.js'

export default class DisputesShow extends BaseCommand {
  static override summary = 'Show one dispute: parties, phase, rounds, lo/hi, the trace headers, the committee and its votes, the outcome.'
  static override examples = [
    {description: 'Dispute 1 on the local devnet', command: '<%= config.bin %> <%= command.id %> 1'},
    {description: 'Its outcome, for a script', command: '<%= config.bin %> <%= command.id %> 1 --json | jq -r .outcome'},
  ]
  static override args = {id: Args.string({description: 'Dispute id.', required: true})}
  static override flags = {...connectionFlags}

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(DisputesShow)
    if (!/^[1-9]\d*$/.test(args.id)) throw new InvalidInputError(`id: expected a dispute id (a positive integer), got "${args.id}"`)
    const id = BigInt(args.id)
    const connection = await connect(connectOptionsFrom(flags))
    const [dispute, committee] = await Promise.all([getDispute(connection, {disputeId: id}), committeeOf(connection, {disputeId: id})])
    const view = disputeToJson(dispute, committee)
    const shown = (key: string, value: unknown) =>
      key === 'committee'
        ? (value as {member: string; vote: string}[]).map((seat) => `${seat.member} (${seat.vote})`).join(', ') || '-'
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value)
    if (!this.jsonEnabled()) this.log(renderTable([], Object.entries(view).map(([key, value]) => [key, shown(key, value)])))
    return view
  }
}
