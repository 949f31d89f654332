import type {Devnet} from '../../sim/createDevnet.js'
import {applyChainView, attachRoster, type DashboardState} from './dashboardState.js'
import {type ChainPoller, createChainPoller} from './readChainView.js'

/** One devnet as the dashboard follows it: its chain polled into a state, and pause/resume. */
export type DevnetFollower = {
  /** The started devnet: name its actors, then read its chain about once per block. */
  attach(devnet: Devnet): void
  /** Pauses a running devnet, resumes a paused one; says what happened in the feed. */
  togglePause(): Promise<void>
  /** Stops polling (the devnet itself runs on). Safe to call twice. */
  detach(): void
}

/**
 * Keeps `state` up to date with one devnet's chain: the head, balances, stakes, tasks and money events, read again
 * only when a block was mined (`pollMs` is how often to look). `changed` is told after every update.
 */
export function followDevnet(state: DashboardState, changed: () => void, pollMs = 500): DevnetFollower {
  let devnet: Devnet | undefined
  let poller: ChainPoller | undefined
  let pollTimer: NodeJS.Timeout | undefined
  let polling = false
  let toggling = false
  let detached = false

  const note = (text: string, kind: 'devnet' | 'error' = 'devnet') => {
    state.feed.push({block: state.head?.number, actor: 'dashboard', kind, text})
    changed()
  }

  async function poll(): Promise<void> {
    if (!poller || polling || detached) return
    polling = true
    try {
      const view = await poller.poll()
      if (view && !detached) {
        applyChainView(state, view)
        changed()
      }
    } catch {
      // anvil is busy or already stopping: the next poll tries again, and the run itself reports real failures.
    } finally {
      polling = false
    }
  }

  async function togglePause(): Promise<void> {
    if (!devnet || toggling || state.mode === 'stopping' || state.mode === 'starting') return
    toggling = true
    const resuming = devnet.paused
    state.mode = resuming ? 'resuming' : 'pausing'
    changed()
    try {
      if (resuming) {
        await devnet.resume()
        if (state.mode === 'resuming') state.mode = 'running'
        note('resumed: chain time continues from the last block, actors continue (SIGCONT)')
      } else {
        await devnet.pause()
        if (state.mode === 'pausing') state.mode = devnet.paused ? 'paused' : 'running'
        const head = await devnet.connection?.publicClient.getBlockNumber().catch(() => undefined)
        if (devnet.paused) note(`paused: mining stopped at block ${head ?? '?'}, actors stopped (SIGSTOP)`)
      }
    } catch (error) {
      if (state.mode === 'pausing' || state.mode === 'resuming') state.mode = devnet.paused ? 'paused' : 'running'
      note(`${resuming ? 'resume' : 'pause'} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 'error')
    } finally {
      toggling = false
    }
  }

  return {
    attach(started) {
      if (detached) return
      devnet = started
      attachRoster(state, started)
      const connection = started.connection
      if (connection) {
        const addresses = state.actors.flatMap((actor) => (actor.address ? [actor.address] : []))
        poller = createChainPoller({
          connection,
          addresses,
          fromBlock: 0n,
          nameOf: (address) => state.names.get(address.toLowerCase()) ?? `${address.slice(0, 8)}…`,
        })
        pollTimer = setInterval(() => void poll(), pollMs)
        void poll()
      }
      changed()
    },
    togglePause,
    detach() {
      detached = true
      clearInterval(pollTimer)
    },
  }
}
