import cliProgress from 'cli-progress'

export type Progress = {
  update(value: number, detail?: string): void
  stop(): void
}

export type ProgressOptions = {
  label: string
  total: number
  /** Off for --json, so stdout stays machine-readable. */
  enabled: boolean
  stream?: NodeJS.WriteStream
}

/**
 * A cli-progress bar on a terminal; on a pipe or a CI log, a plain line at every quarter instead of
 * carriage-return redraws that would garble the log.
 */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr
  if (!options.enabled) return {update() {}, stop() {}}
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {stream, format: `${options.label} [{bar}] {percentage}% | {value}/{total} | {detail}`, hideCursor: true, clearOnComplete: false},
      cliProgress.Presets.shades_classic,
    )
    bar.start(options.total, 0, {detail: ''})
    return {
      update: (value, detail = '') => bar.update(value, {detail}),
      stop: () => bar.stop(),
    }
  }
  let nextQuarter = 1
  return {
    update(value, detail = '') {
      while (options.total > 0 && value >= (nextQuarter * options.total) / 4 && nextQuarter <= 4) {
        stream.write(`${options.label}: ${value}/${options.total} (${nextQuarter * 25}%) ${detail}\n`)
        nextQuarter++
      }
    },
    stop() {},
  }
}

export type MultiProgress = {
  /** A bar (or, off a terminal, a line per change) for one item: `label` names it. */
  add(label: string, total: number): Progress
  /** A line of text: above the bars while they are drawn (so no redraw garbles it), else to `fallback`. */
  log(line: string, fallback: (line: string) => void): void
  stop(): void
}

/**
 * One cli-progress bar per item on a terminal (a split job: one per task), redrawn together. On a pipe or a
 * CI log, one plain line whenever an item's detail changes, so nothing is garbled by redraws.
 */
export function createMultiProgress(options: {enabled: boolean; stream?: NodeJS.WriteStream}): MultiProgress {
  const stream = options.stream ?? process.stderr
  if (!options.enabled) return {add: () => ({update() {}, stop() {}}), log: (line, fallback) => fallback(line), stop() {}}
  if (stream.isTTY) {
    let drawing = false
    const multi = new cliProgress.MultiBar(
      {stream, format: '{label} [{bar}] {value}/{total} | {detail}', hideCursor: true, clearOnComplete: false, autopadding: true},
      cliProgress.Presets.shades_classic,
    )
    return {
      add(label, total) {
        drawing = true
        const bar = multi.create(total, 0, {label, detail: ''})
        return {update: (value, detail = '') => bar.update(value, {label, detail}), stop: () => bar.stop()}
      },
      log: (line, fallback) => (drawing ? multi.log(`${line}\n`) : fallback(line)),
      stop() {
        multi.stop()
        drawing = false
      },
    }
  }
  return {
    add(label, total) {
      let last: string | undefined
      return {
        update(value, detail = '') {
          const line = `${label}: ${detail} (${value}/${total})`
          if (line === last) return
          last = line
          stream.write(`${line}\n`)
        },
        stop() {},
      }
    },
    log: (line, fallback) => fallback(line),
    stop() {},
  }
}
