import type {Hex} from 'viem'

import type {SignedConnection} from '../protocol/connect.js'

/** What every role's steps are given: the options it was started with, its connection, and where its events go. */
export type RoleRun<Options, Event> = {
  options: Options
  connection: SignedConnection
  signal: AbortSignal | undefined
  emit: (event: Event) => void
  /** This actor's address. */
  me: Hex
}
