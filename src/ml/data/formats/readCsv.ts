import {DataInputError} from '../errors.js'
import type {Table} from './table.js'

/**
 * A CSV file with a header row (RFC 4180 quoting, by csv-parse). Every row must have the header's field count:
 * a ragged row is named by its line. Cells stay strings here; the columns a job reads are converted later.
 * csv-parse loads with the first CSV file: most jobs have none, and every CLI start would parse it.
 */
export async function readCsv(bytes: Uint8Array, where: string): Promise<Table> {
  const {CsvError, parse} = await import('csv-parse/sync')
  let records: string[][]
  try {
    records = parse(Buffer.from(bytes), {bom: true, skip_empty_lines: true, trim: true}) as string[][]
  } catch (error) {
    if (error instanceof CsvError && error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      const {lines, record} = error as InstanceType<typeof CsvError> & {lines?: number; record?: unknown[]}
      throw new DataInputError(`${where}: line ${lines} has ${record?.length ?? '?'} fields, expected as many as the header`)
    }
    throw new DataInputError(`${where}: expected CSV, got ${(error as Error).message}`)
  }
  const [header, ...rows] = records
  if (header === undefined || rows.length === 0) throw new DataInputError(`${where}: expected a header row and at least one data row`)
  return {kind: 'table', header, rows}
}
