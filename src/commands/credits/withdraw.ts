import {Flags} from '@oclif/core'
import {connect, requireSigner} from '../../protocol/connect.js'
import {describeWithdrawal, type WithdrawCreditResult, withdrawCredit} from '../../protocol/withdrawCredit.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {connectionFlags} from '../../ui/flags.js'
import {parseAddress} from '../../ui/parseAddresses.js'

export default class CreditsWithdraw extends BaseCommand {
  static override summary = 'Withdraw the ether the market credited you: fees, refunds, a rejection\'s shortfall.'
  static override description =
    'The market never pushes ether (a recipient that refuses it could otherwise block a settlement): every payment is credited to its recipient, who withdraws it with this command. Withdraws the whole credit of --account to itself, or to --to. With nothing credited it sends no transaction and says so.'
  static override examples = [
    {description: 'Collect what the devnet\'s solver 1 earned', command: '<%= config.bin %> <%= command.id %> --account 3'},
    {description: 'Send it to another address, for a script', command: '<%= config.bin %> <%= command.id %> --account 3 --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --json'},
  ]
  static override flags = {
    ...connectionFlags,
    to: Flags.string({description: 'Where the ether goes (default: the account itself).'}),
  }

  async run(): Promise<Record<string, string>> {
    const {flags} = await this.parse(CreditsWithdraw)
    const to = parseAddress('--to', flags.to)
    const connection = requireSigner(await connect(connectOptionsFrom(flags, true)))
    const result = await withdrawCredit(connection, {to})
    this.log(describeWithdrawal(result))
    return toJson(result)
  }
}

function toJson({account, to, amount, transaction}: WithdrawCreditResult): Record<string, string> {
  return {account, to, amount: amount.toString(), ...(transaction ? {transaction: transaction.hash, gasUsed: transaction.gasUsed.toString()} : {})}
}
