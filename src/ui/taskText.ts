import {formatEther, formatGwei} from 'viem'

import type {Task} from '../protocol/types.js'
import {taskToJson} from './taskView.js'

/** Fields shown in ether, in gwei per work unit, as a time, or as a 1e18 fixed-point number. */
const ETHER = new Set(['escrow', 'solverReward', 'verifierReward', 'solverLocked', 'verifierLocked'])
const PRICE = new Set(['maxPrice', 'price'])
const TIME = new Set(['deadline', 'submittedAt'])
const relative = new Intl.RelativeTimeFormat('en', {numeric: 'auto'})

/**
 * One task for people (`gensyn tasks show` without --json): ether with its symbol, prices in gwei per work unit,
 * times relative to the chain's clock with the UTC time beside them, 32-byte hashes shortened. --json keeps the exact
 * values (taskToJson).
 */
export function taskToText(task: Task, chainNow: bigint): [string, string][] {
  return Object.entries(taskToJson(task)).map(([key, value]) => [key, humanValue(key, value, chainNow)])
}

function humanValue(key: string, value: unknown, chainNow: bigint): string {
  if (ETHER.has(key)) return `${formatEther(BigInt(String(value)))} ETH`
  if (PRICE.has(key)) return `${formatGwei(BigInt(String(value)))} gwei/WU`
  if (TIME.has(key)) return timeText(Number(value), Number(chainNow))
  if (key === 'distance') return value === '0' ? '0 (bit for bit)' : formatEther(BigInt(String(value)))
  if (key === 'forcedErrorBps') return `${Number(value) / 100} %`
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) return /^0x0{64}$/.test(value) ? '-' : `${value.slice(0, 10)}…${value.slice(-4)}`
  return String(value)
}

/** "in 4 minutes (2026-11-27 10:02:11 UTC)"; "-" for a time the task has not reached (0). */
export function timeText(unixSeconds: number, nowSeconds: number): string {
  if (unixSeconds === 0) return '-'
  const utc = new Date(unixSeconds * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
  return `${relativeText(unixSeconds - nowSeconds)} (${utc})`
}

function relativeText(seconds: number): string {
  const magnitude = Math.abs(seconds)
  if (magnitude < 90) return relative.format(seconds, 'second')
  if (magnitude < 90 * 60) return relative.format(Math.round(seconds / 60), 'minute')
  if (magnitude < 36 * 3600) return relative.format(Math.round(seconds / 3600), 'hour')
  return relative.format(Math.round(seconds / 86_400), 'day')
}
