import {Args} from '@oclif/core'

import {connect} from '../../protocol/connect.js'
import {getTask} from '../../protocol/getTask.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {connectionFlags} from '../../ui/flags.js'
import {taskToText} from '../../ui/taskText.js'
import {taskToJson} from '../../ui/taskView.js'
import {parseTaskId} from '../../ui/parseTaskId.js'
import {renderTable} from '../../ui/renderTable.js'

export default class TasksShow extends BaseCommand {
  static override summary = 'Show one task: its status, parties, escrow, proof and verdict.'
  static override description = 'Amounts in ETH and gwei per work unit, times relative to the chain\'s clock (with the UTC time), long hashes shortened; --json gives the exact values (wei, unix seconds, full hashes).'
  static override examples = [
    {description: 'Task 1 on the local devnet', command: '<%= config.bin %> <%= command.id %> 1'},
    {description: 'Its proof root, for a script', command: '<%= config.bin %> <%= command.id %> 1 --json | jq -r .proofRoot'},
  ]
  static override args = {id: Args.string({description: 'Task id.', required: true})}
  static override flags = {...connectionFlags}

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(TasksShow)
    const taskId = parseTaskId(args.id)
    const connection = await connect(connectOptionsFrom(flags))
    const task = await getTask(connection, {taskId})
    if (!this.jsonEnabled()) {
      const {timestamp} = await connection.publicClient.getBlock({blockTag: 'latest'})
      this.log(renderTable([], taskToText(task, timestamp)))
    }
    return taskToJson(task)
  }
}
