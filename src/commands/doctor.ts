import {probeBackends, type BackendProbes} from '../ml/backend/probeBackends.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {renderTable} from '../ui/renderTable.js'

export default class Doctor extends BaseCommand {
  static override summary = 'Say which training backends work on this machine, and why the others do not.'
  static override description =
    'Loads every TensorFlow.js backend gensyn can train on (wasm, cpu, webgpu, gpu) in turn, one line each: the runtime id proofs made with it carry, or the reason it cannot run here. webgpu also runs its repeatability self-test (one training step replayed twice, compared bit for bit). The last line says what --backend auto picks.'
  static override examples = [
    {description: 'Which backends work here', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'The same as JSON, for a CI check', command: "<%= config.bin %> <%= command.id %> --json | jq '.backends[] | select(.available)'"},
  ]

  async run(): Promise<BackendProbes> {
    await this.parse(Doctor)
    const probes = await probeBackends()
    const rows = probes.backends.map((probe) =>
      probe.available ? [probe.backend, 'ok', probe.runtime + (probe.note ? ` (${probe.note})` : '')] : [probe.backend, 'unavailable', probe.reason],
    )
    this.log(renderTable(['BACKEND', 'STATUS', 'RUNTIME OR REASON'], rows))
    this.log(`--backend auto picks ${probes.auto}`)
    return probes
  }
}
