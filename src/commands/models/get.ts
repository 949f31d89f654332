import {Args, Flags} from '@oclif/core'

import {fetchModel, type FetchModelResult} from '../../protocol/fetchModel.js'
import {connect} from '../../protocol/connect.js'
import {readKeyFile} from '../../privacy/keyFile.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {connectOptionsFrom} from '../../ui/connectOptions.js'
import {connectionFlags} from '../../ui/flags.js'
import {parseTaskId} from '../../ui/parseTaskId.js'

export default class ModelsGet extends BaseCommand {
  static override summary = "Write a task's trained model to a folder: TensorFlow.js files, safetensors and a model card."
  static override description =
    'Takes the final checkpoint of a settled, accepted task from the blob store (hash-checked), rebuilds the model from the task\'s spec and writes model.json + weights.bin in the tfjs layers format, the weights as model.safetensors (PyTorch, JAX, numpy), and model-card.json (spec, data hash, proof root, test metrics, the data\'s normalisation).'
  static override examples = [
    {description: 'Fetch the model of task 1: model.json + weights.bin (tfjs), model.safetensors + model-card.json', command: '<%= config.bin %> <%= command.id %> 1 --out ./model'},
    {
      description: 'A private task: put its mapping in front, so the model takes raw inputs (the key file gensyn submit wrote)',
      command: '<%= config.bin %> <%= command.id %> 3 --out ./model --key .gensyn/keys/task-3.json',
    },
    {description: 'Fetch from a shared blob store and print the files as JSON', command: '<%= config.bin %> <%= command.id %> 7 --out ./model --store /shared/blobs --json'},
  ]
  static override args = {id: Args.string({description: 'Task id.', required: true})}
  static override flags = {
    ...connectionFlags,
    out: Flags.string({description: 'Folder to write model.json and weights.bin into.', required: true}),
    key: Flags.string({description: "A private task's key file (written by gensyn submit): the model gets the mapping as its first layers and takes raw inputs."}),
    force: Flags.boolean({description: 'Also export a task that is not settled as accepted (its proof is unverified).'}),
  }

  async run(): Promise<FetchModelResult> {
    const {args, flags} = await this.parse(ModelsGet)
    const taskId = parseTaskId(args.id)
    const connection = await connect(connectOptionsFrom(flags))
    const key = flags.key === undefined ? undefined : await readKeyFile(flags.key)
    const result = await fetchModel({connection, taskId, outDir: flags.out, force: flags.force, key})
    const inputs = result.inputs === 'raw' ? '; behind its mapping: takes raw inputs' : result.inputs === 'mapped' ? '; a private task without --key: takes mapped inputs only' : ''
    this.log(`task ${result.taskId}: wrote ${result.files.join(', ')} (checkpoint ${result.checkpoint}, step ${result.step}${inputs})`)
    return result
  }
}
