import ora, {type Ora} from 'ora'

export type WaitStatus = {
  /**
   * What the command waits for now: a string starts (or, when it differs, restarts) the wait; null says it is busy
   * (training, replaying: the wait is over and its line goes); undefined leaves things as they are.
   */
  update(what: string | null | undefined): void
  /** Ends the status line for good (the command is done). */
  stop(): void
}

export type WaitStatusOptions = {
  /** Off under --json: stdout is for the JSON lines, and stderr stays quiet. */
  enabled: boolean
  /** Reads the chain's head, shown with the wait. */
  readBlock: () => Promise<bigint>
  stream?: NodeJS.WriteStream
  /** A spinner redrawn in place (a terminal), else one plain line per wait. Default: the stream is a terminal. */
  interactive?: boolean
  /** How often the spinner's line refreshes its clock and block. */
  refreshMs?: number
  now?: () => number
}

/**
 * The one line a command shows while it waits on the chain, on stderr: on a terminal an ora spinner that says
 * what it waits for, for how long and the current block (`⠋ waiting for an open task to claim · 12 s · block 345`);
 * off a terminal (a pipe, a log) a plain line when a wait starts, so nothing is redrawn.
 */
export function createWaitStatus(options: WaitStatusOptions): WaitStatus {
  const stream = options.stream ?? process.stderr
  if (!options.enabled) return {update() {}, stop() {}}
  // A terminal that reports no width (a pty nobody sized) cannot be redrawn in place: ora would count the lines to
  // clear by dividing by zero columns.
  const interactive = options.interactive ?? (stream.isTTY === true && (stream.columns ?? 0) > 0 && process.env.TERM !== 'dumb')
  return interactive ? spinnerStatus(stream, options) : plainStatus(stream, options)
}

function spinnerStatus(stream: NodeJS.WriteStream, options: WaitStatusOptions): WaitStatus {
  const now = options.now ?? Date.now
  // No hidden cursor and no raw stdin: ora would add exit and keypress handlers beside withInterrupt's Ctrl-C.
  const spinner: Ora = ora({stream, isEnabled: true, hideCursor: false, discardStdin: false})
  let wait: {what: string; since: number} | undefined
  let block: bigint | undefined
  const draw = () => {
    if (!wait) return
    const seconds = Math.max(0, Math.floor((now() - wait.since) / 1000))
    spinner.text = `${wait.what} · ${formatWait(seconds)}${block === undefined ? '' : ` · block ${block}`}`
  }
  const refresh = async () => {
    block = await options.readBlock().catch(() => block)
    draw()
  }
  let timer: NodeJS.Timeout | undefined
  const stopSpinner = () => {
    clearInterval(timer)
    timer = undefined
    spinner.stop()
    wait = undefined
  }
  return {
    update(what) {
      if (what === undefined || what === wait?.what) return
      if (what === null) return stopSpinner()
      wait = {what, since: now()}
      draw()
      if (!timer) {
        spinner.start()
        timer = setInterval(() => void refresh(), options.refreshMs ?? 1000)
        timer.unref()
      }
      void refresh()
    },
    stop: stopSpinner,
  }
}

function plainStatus(stream: NodeJS.WriteStream, options: WaitStatusOptions): WaitStatus {
  let current: string | null = null
  return {
    update(what) {
      if (what === undefined || what === current) return
      current = what
      if (what === null) return
      // The line names the block the wait began at; a failed read leaves it out rather than hold the line back.
      void options
        .readBlock()
        .then((block) => ` (block ${block})`)
        .catch(() => '')
        .then((at) => {
          if (current === what) stream.write(`${what}${at}\n`)
        })
    },
    stop() {
      current = null
    },
  }
}

/** 42 s, 3 min 05 s, 1 h 02 min. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`
}
