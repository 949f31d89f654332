import {protocolConfigAbi} from '../chain/generated/index.js'
import type {WorkTable} from '../ml/estimate/workTable.js'
import type {Connection} from './connect.js'
import {ChainError, toProtocolError} from './errors.js'
import {configAddress} from './getProtocolParams.js'

/**
 * The protocol's work table (`ProtocolConfig.workTable()`, docs/market.md section 1) in the estimator's shape, so
 * a submission estimates with the weights and limits the chain holds now.
 */
export async function getWorkTable(connection: Pick<Connection, 'publicClient' | 'contracts'>): Promise<WorkTable> {
  let raw
  try {
    raw = await connection.publicClient.readContract({address: await configAddress(connection), abi: protocolConfigAbi, functionName: 'workTable'})
  } catch (error) {
    throw toProtocolError('workTable', error)
  }
  const table: WorkTable = {
    matmulMilli: raw.matmulMilli,
    convMilli: raw.convMilli,
    elementwiseMilli: raw.elementwiseMilli,
    transcendentalMilli: raw.transcendentalMilli,
    flopsPerWorkUnit: raw.flopsPerWorkUnit,
    maxSteps: safeNumber('maxSteps', raw.maxSteps),
    maxLayers: raw.maxLayers,
    maxTensorElements: safeNumber('maxTensorElements', raw.maxTensorElements),
    maxBatchSize: raw.maxBatchSize,
    maxWorkUnits: safeNumber('maxWorkUnits', raw.maxWorkUnits),
  }
  return table
}

/** The estimator counts in JavaScript numbers: a limit above 2^53 - 1 would lose precision. */
function safeNumber(field: string, value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ChainError(`workTable.${field}: ${value} is above ${Number.MAX_SAFE_INTEGER}, which the estimator cannot count exactly`)
  return Number(value)
}
