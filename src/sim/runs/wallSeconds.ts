import type {RunRecord} from '../runRecord.js'

/** A run's wall-clock seconds, from run.json's start to when its report was written; null when either is unknown. */
export function wallSeconds(record: RunRecord | undefined): number | null {
  if (!record?.endedAt) return null
  const seconds = (Date.parse(record.endedAt) - Date.parse(record.startedAt)) / 1000
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 10) / 10 : null
}
