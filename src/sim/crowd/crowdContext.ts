import type {SignedConnection} from '../../protocol/connect.js'
import type {Crowd} from './crowdSchema.js'
import type {BoardTask, TaskBoard} from './taskBoard.js'
import type {CrowdMember, CrowdStats} from './types.js'

/** What every member of one crowd process shares: the board, the crowd's settings, a seeded random source. */
export type CrowdContext = {
  crowd: Crowd
  board: TaskBoard
  stats: CrowdStats
  random: () => number
  signal: AbortSignal
  /**
   * Tasks a member of this process is claiming (to train or to verify) right now: the others leave them alone, so
   * a new task costs one lost race per process, not one per idle member.
   */
  claiming: Set<bigint>
  /** Whether a task is one of the crowd's (a scenario may run real jobs beside it). */
  isCrowdTask(task: BoardTask): boolean
  /** Resolves once the board has seen block `block` (or the run stops). */
  untilBlock(block: bigint): Promise<void>
}

/** A member's one move per board refresh. */
export type CrowdAct = () => Promise<void>

export type CrowdRoleFactory = (connection: SignedConnection, member: CrowdMember, context: CrowdContext) => CrowdAct

export function pickRandom<T>(items: readonly T[], random: () => number): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(random() * items.length)]
}
