import {DataInputError} from './errors.js'
import type {Cell, NdArray, ParsedData} from './formats/table.js'

/** A split's raw values, before class mapping, scaling and normalisation. */
export type RawSplit = {
  count: number
  featureShape: number[]
  features: Float32Array
  /** Per sample: `labelWidth` values (strings or numbers; a regression's numbers). */
  labels: (string | number)[]
  labelWidth: number
}

export type ColumnChoice = {features?: string | string[] | undefined; label?: string | undefined; where: string}

function numberCell(cell: Cell, where: () => string): number {
  const value = typeof cell === 'number' ? cell : cell === null || cell.trim() === '' ? Number.NaN : Number(cell)
  if (!Number.isFinite(value)) throw new DataInputError(`${where()}: expected a finite number, got ${JSON.stringify(cell)}`)
  return value
}

function fromTable(header: string[], rows: Cell[][], choice: ColumnChoice): RawSplit {
  const column = (name: string, field: string) => {
    const index = header.indexOf(name)
    if (index < 0) throw new DataInputError(`${field}: expected a column of ${choice.where} (${header.join(', ')}), got "${name}"`)
    return index
  }
  const labelName = choice.label ?? header[header.length - 1]!
  const label = column(labelName, 'dataset.label')
  if (typeof choice.features === 'string') throw new DataInputError(`dataset.features: expected a list of column names for a table, got "${choice.features}"`)
  const names = choice.features ?? header.filter((_, i) => i !== label)
  const columns = names.map((name) => column(name, 'dataset.features'))
  const features = new Float32Array(rows.length * columns.length)
  const labels: (string | number)[] = []
  for (const [r, row] of rows.entries()) {
    for (const [c, index] of columns.entries())
      features[r * columns.length + c] = numberCell(row[index] ?? null, () => `${choice.where}: row ${r + 1}, column ${names[c]}`)
    const value = row[label]
    if (value === null || value === undefined || value === '') throw new DataInputError(`${choice.where}: row ${r + 1}, column ${labelName}: expected a label, got an empty cell`)
    labels.push(value)
  }
  return {count: rows.length, featureShape: [columns.length], features, labels, labelWidth: 1}
}

function named(arrays: Map<string, NdArray>, name: string, field: string, where: string): NdArray {
  const array = arrays.get(name)
  if (!array) throw new DataInputError(`${field}: expected an array of ${where} (${[...arrays.keys()].join(', ')}), got "${name}"`)
  return array
}

function fromArrays(x: NdArray, y: NdArray, where: string): RawSplit {
  const [count, ...featureShape] = x.shape
  if (count === undefined || featureShape.length === 0) throw new DataInputError(`${where}: expected features of shape [samples, ...], got [${x.shape.join(', ')}]`)
  if (y.shape[0] !== count || y.shape.length > 2)
    throw new DataInputError(`${where}: expected labels of shape [${count}] or [${count}, k] for ${count} samples, got [${y.shape.join(', ')}]`)
  if (typeof x.data[0] === 'string') throw new DataInputError(`${where}: expected numeric features, got strings`)
  const features = Float32Array.from(x.data as ArrayLike<number>)
  for (const [i, value] of features.entries())
    if (!Number.isFinite(value)) throw new DataInputError(`${where}: sample ${Math.floor(i / (features.length / count))}: expected finite features, got ${value}`)
  return {count, featureShape, features, labels: Array.from(y.data as ArrayLike<number | string>), labelWidth: y.shape[1] ?? 1}
}

/** The features and labels a job names inside its parsed data (`labels` holds a separate labels file's array, if any). */
export function extractColumns(data: ParsedData, choice: ColumnChoice, labels?: NdArray): RawSplit {
  if (data.kind === 'table') return fromTable(data.header, data.rows, choice)
  if (labels) return fromArrays([...data.arrays.values()][0]!, labels, choice.where)
  if (Array.isArray(choice.features)) throw new DataInputError(`dataset.features: expected an array name for npz, got a list`)
  const x = named(data.arrays, choice.features ?? 'x', 'dataset.features', choice.where)
  const y = named(data.arrays, choice.label ?? 'y', 'dataset.label', choice.where)
  return fromArrays(x, y, choice.where)
}
