import {Flags} from '@oclif/core'

import {connect} from '../../protocol/connect.js'
import {listTasks} from '../../protocol/listTasks.js'
import {taskStatuses} from '../../protocol/types.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {connectionFlags} from '../../ui/flags.js'
import {taskRow, taskToJson} from '../../ui/taskView.js'
import {renderTable} from '../../ui/renderTable.js'

export default class TasksList extends BaseCommand {
  static override summary = 'List the tasks on the market.'
  static override examples = [
    {description: 'Every task on the local devnet', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Open tasks only, as JSON', command: '<%= config.bin %> <%= command.id %> --status Submitted --json'},
  ]
  static override flags = {
    ...connectionFlags,
    status: Flags.string({description: 'Only tasks in this status.', options: taskStatuses.filter((status) => status !== 'None'), multiple: true}),
  }

  async run(): Promise<Record<string, unknown>[]> {
    const {flags} = await this.parse(TasksList)
    const connection = await connect(connectOptionsFrom(flags))
    const tasks = await listTasks(connection, {status: flags.status as never})
    if (tasks.length === 0) this.log('no tasks')
    else this.log(renderTable(['ID', 'STATUS', 'VERDICT', 'SUBMITTER', 'SOLVER', 'VERIFIER', 'ESCROW (ETH)'], tasks.map(taskRow)))
    return tasks.map(taskToJson)
  }
}
