import {DataInputError} from '../errors.js'
import type {Cell, Table} from './table.js'

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number' || typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  if (value instanceof Date) return value.getTime()
  return JSON.stringify(value)
}

/**
 * A Parquet file (hyparquet, with the snappy codec built in and zstd, gzip, brotli and lz4 from
 * hyparquet-compressors: pyarrow's, Polars' and Hugging Face's exports). Top-level columns become a table;
 * integers (INT64 as bigint) become numbers. The two packages (260 KB) load with the first Parquet file, not at every CLI start.
 */
export async function readParquet(bytes: Uint8Array, where: string): Promise<Table> {
  const [{parquetMetadata, parquetReadObjects}, {compressors}] = await Promise.all([import('hyparquet'), import('hyparquet-compressors')])
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
  let header: string[]
  let objects: Record<string, unknown>[]
  try {
    const metadata = parquetMetadata(buffer)
    header = metadata.schema.slice(1).filter((element) => element.num_children === undefined).map((element) => element.name)
    objects = await parquetReadObjects({file: buffer, compressors})
  } catch (error) {
    throw new DataInputError(`${where}: expected a Parquet file, got ${(error as Error).message}`)
  }
  if (objects.length === 0) throw new DataInputError(`${where}: expected at least one row`)
  return {kind: 'table', header, rows: objects.map((object) => header.map((name) => cell(object[name])))}
}
