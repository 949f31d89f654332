import type {SweepEvent} from '../sim/sweep/runSweep.js'

export type SweepStatus = {onEvent(event: SweepEvent): void; stop(): void}

/**
 * A sweep's progress: a line when it starts and one per finished cell; on a terminal (`live`), also a status line
 * kept at the bottom that names the cells running now.
 */
export function createSweepStatus({log, live}: {log: (line: string) => void; live?: NodeJS.WriteStream | undefined}): SweepStatus {
  const running = new Map<string, string>()
  let total = 0
  let done = 0
  const redraw = () => {
    if (!live) return
    live.write('\r\u001B[2K')
    if (running.size > 0) live.write(`[${done}/${total} done] running ${[...running.values()].join('; ')}`.slice(0, (live.columns || 120) - 1))
  }
  const print = (line: string) => {
    live?.write('\r\u001B[2K')
    log(line)
    redraw()
  }
  const describe = (settings: Record<string, unknown>, repeat: number) => `${Object.entries(settings).map(([path, value]) => `${path}=${String(value)}`).join(' ')} (repeat ${repeat})`
  return {
    onEvent(event) {
      switch (event.type) {
        case 'planned':
          total = event.pending
          return print(
            `sweep ${event.id} (seed ${event.seed}): ${event.resumed ? `resumed, ${event.cells - event.pending} of ${event.cells} cells already complete, ` : ''}${event.pending} cell${event.pending === 1 ? '' : 's'} to run; folder ${event.dir}`,
          )
        case 'cell-started':
          running.set(event.cell.id, `${event.cell.id}: ${describe(event.cell.settings, event.cell.repeat)}`)
          return live ? redraw() : print(`cell ${event.position}/${event.of} running: ${event.cell.id}: ${describe(event.cell.settings, event.cell.repeat)}, seed ${event.cell.seed}`)
        case 'cell-finished': {
          running.delete(event.outcome.cell.id)
          done++
          const {result, reason, runId} = event.outcome
          return print(`cell ${event.outcome.cell.id} ${result}${reason && result !== 'ok' ? ` (${reason})` : ''}: run ${runId}`)
        }
      }
    },
    stop() {
      running.clear()
      live?.write('\r\u001B[2K')
    },
  }
}
