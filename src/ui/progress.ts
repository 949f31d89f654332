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
