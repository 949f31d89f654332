import {CsvError, parse} from 'csv-parse/sync'

import {DataInputError} from '../errors.js'
import type {Table} from './table.js'

/**
 * A CSV file with a header row (RFC 4180 quoting, by csv-parse). Every row must have the header's field count:
 * a ragged row is named by its line. Cells stay strings here; the columns a job reads are converted later.
 */
export function readCsv(bytes: Uint8Array, where: string): Table {
  let records: string[][]
  try {
    records = parse(Buffer.from(bytes), {bom: true, skip_empty_lines: true, trim: true}) as string[][]
  } catch (error) {
    if (error instanceof CsvError && error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      const {lines, record} = error as CsvError & {lines?: number; record?: unknown[]}
      throw new DataInputError(`${where}: line ${lines} has ${record?.length ?? '?'} fields, expected as many as the header`)
    }
    throw new DataInputError(`${where}: expected CSV, got ${(error as Error).message}`)
  }
  const [header, ...rows] = records
  if (header === undefined || rows.length === 0) throw new DataInputError(`${where}: expected a header row and at least one data row`)
  return {kind: 'table', header, rows}
}
