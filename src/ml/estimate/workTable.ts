/** The operation classes FLOPs are counted in (docs/market.md, section 1). */
export type OpClass = 'matmul' | 'conv' | 'elementwise' | 'transcendental'

/** The classes in the order tables and JSON list them. */
export const opClasses: readonly OpClass[] = ['matmul', 'conv', 'elementwise', 'transcendental']

/**
 * The protocol's work table (ProtocolConfig.workTable()): the weight of each operation class in thousandths
 * (like the EVM's gas table: a transcendental FLOP costs more than an add), the weighted FLOPs one work unit
 * stands for, and the limits that bound every loop of a job.
 */
export type WorkTable = {
  matmulMilli: number
  convMilli: number
  elementwiseMilli: number
  transcendentalMilli: number
  flopsPerWorkUnit: number
  /** Most training steps a job may ask for (`training.steps`). */
  maxSteps: number
  /** Most layers a model may have (`model.layers`). */
  maxLayers: number
  /** Most elements in any activation (batch included) or parameter tensor. */
  maxTensorElements: number
  /** Most samples per batch (`training.batchSize`). */
  maxBatchSize: number
  /** Most work units one task may be estimated at. */
  maxWorkUnits: number
}

/**
 * The deployed defaults (docs/market.md, section 1). ProtocolConfig's constructor sets the same values; a
 * contract test compares the two, so a change here without one there (or the reverse) fails.
 */
export const defaultWorkTable: WorkTable = Object.freeze({
  matmulMilli: 1000,
  convMilli: 1000,
  elementwiseMilli: 1000,
  transcendentalMilli: 4000,
  flopsPerWorkUnit: 1_000_000,
  maxSteps: 100_000,
  maxLayers: 32,
  maxTensorElements: 16_777_216,
  maxBatchSize: 1024,
  maxWorkUnits: 1_000_000_000,
})

/** The weight of an operation class in thousandths. */
export function weightMilli(table: WorkTable, opClass: OpClass): number {
  switch (opClass) {
    case 'matmul':
      return table.matmulMilli
    case 'conv':
      return table.convMilli
    case 'elementwise':
      return table.elementwiseMilli
    case 'transcendental':
      return table.transcendentalMilli
  }
}
