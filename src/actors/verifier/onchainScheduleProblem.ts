import type {JobSpec} from '../../ml/spec/index.js'
import {checkpointSchedule, taskStepRange} from '../../ml/train/index.js'
import type {ProofManifest} from '../../pol/index.js'
import type {Task} from '../../protocol/types.js'

/**
 * The on-chain schedule (checkpointInterval, totalSteps, checkpointCount) must be the proof's: the dispute game
 * plays segments by the on-chain numbers (checkpoint s is the state after absolute step start + min(s * interval,
 * totalSteps), start = the task's range start), and the market pays by totalSteps, so a commit whose numbers
 * disagree with the manifest (checked against the spec by verifyProof) is rejected. totalSteps is the steps the
 * task performed: its whole range (end - start), or, with `training.stopAt`, up to the checkpoint where the
 * proof stopped (the manifest's last step - start; without a manifest, any checkpoint of the range).
 */
export function onchainScheduleProblem(
  task: Pick<Task, 'checkpointInterval' | 'totalSteps' | 'checkpointCount'>,
  spec: JobSpec,
  manifest?: Pick<ProofManifest, 'checkpoints'> | undefined,
): string | undefined {
  const {start, end} = taskStepRange(spec)
  const schedule = checkpointSchedule(spec)
  const interval = BigInt(spec.proof.checkpointInterval)
  if (task.checkpointInterval !== interval) return `on-chain checkpointInterval: expected ${interval} (the job's), got ${task.checkpointInterval}`
  const last = manifest?.checkpoints.at(-1)?.step
  const allowed =
    last !== undefined ? [last - start] : spec.training.stopAt === undefined ? [end - start] : schedule.slice(1).map((step) => step - start)
  if (!allowed.some((steps) => BigInt(steps) === task.totalSteps)) {
    const expected = allowed.length === 1 ? `${allowed[0]}` : `one of ${allowed.join(', ')}`
    return `on-chain totalSteps: expected ${expected} (the ${last !== undefined ? "proof's" : "task's"} steps from ${start}), got ${task.totalSteps}`
  }
  const count = schedule.filter((step) => step - start <= Number(task.totalSteps)).length
  if (task.checkpointCount !== count) return `on-chain checkpointCount: expected ${count} (for ${task.totalSteps} steps), got ${task.checkpointCount}`
  return undefined
}
