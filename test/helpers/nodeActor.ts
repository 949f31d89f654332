import {execa} from 'execa'

import type {ActorExit} from '../../src/sim/actorExit.js'
import type {ActorHandle, ActorRole} from '../../src/sim/spawnActor.js'

/** A real process standing in for an actor: plain `node -e SCRIPT`, adapted to the ActorHandle the devnet uses. */
export function nodeActor(name: string, role: ActorRole, script: string): ActorHandle {
  const child = execa(process.execPath, ['-e', script], {reject: false, stdin: 'ignore'})
  let exit: ActorExit | undefined
  let killed = false
  const exited = child.then((result) => (exit = {exitCode: result.exitCode, signal: result.signal, stderrTail: String(result.stderr).slice(-2000)}))
  return {
    name,
    role,
    account: 0,
    pid: child.pid,
    get exit() {
      return exit
    },
    get killed() {
      return killed
    },
    exited,
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
    async kill() {
      killed = true
      child.kill('SIGKILL')
      return exited
    },
  }
}
