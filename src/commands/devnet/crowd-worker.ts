import {readFile} from 'node:fs/promises'

import {Flags} from '@oclif/core'

import {InvalidInputError} from '../../errors/base.js'
import {connect} from '../../protocol/connect.js'
import {type CrowdProcessConfig, type CrowdProcessSummary, runCrowdProcess} from '../../sim/crowd/runCrowdProcess.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {withInterrupt} from '../../ui/withInterrupt.js'

export default class DevnetCrowdWorkerCommand extends BaseCommand {
  static override hidden = true
  static override summary = "Host a share of a crowd scenario's actors in this process (spawned by `devnet up`)."
  static override description =
    'One of the few processes a crowd scenario (docs/scenarios.md, "Crowds") shares its hundreds of lightweight actors among. `gensyn devnet up` writes each one a config file and spawns it; it prints a JSON progress line every 2 s and a summary line at the end.'
  static override examples = [{description: 'What devnet up runs', command: '<%= config.bin %> <%= command.id %> --config .gensyn/actors/crowd-0.json --state-dir .gensyn'}]
  static override flags = {
    config: Flags.string({description: 'The process config the devnet wrote (members, quotas, the crowd).', required: true}),
    'state-dir': Flags.string({description: 'Folder the devnet runs in.', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
  }

  async run(): Promise<CrowdProcessSummary> {
    const {flags} = await this.parse(DevnetCrowdWorkerCommand)
    const config = await readFile(flags.config, 'utf8').then(
      (text) => JSON.parse(text) as CrowdProcessConfig,
      () => {
        throw new InvalidInputError(`--config: expected a crowd process config file, got ${flags.config}`)
      },
    )
    const connection = await connect({stateDir: flags['state-dir']})
    let last = 0
    const summary = await withInterrupt((signal) =>
      runCrowdProcess({
        connection,
        config,
        signal,
        onProgress: ({settled, posted, head, stats}) => {
          if (performance.now() - last < 2000) return
          last = performance.now()
          this.log(JSON.stringify({type: 'crowd-progress', process: config.index, head: head.toString(), posted, settled, stats}))
        },
      }),
    )
    this.log(JSON.stringify({type: 'crowd-summary', ...summary}))
    return summary
  }
}
