import {readFile} from 'node:fs/promises'

import {z} from 'zod'

import {InvalidInputError} from '../../errors/base.js'
import type {DevnetReport} from '../buildReport.js'

/** The parts every renderer reads; the rest passes through as written (reports from older runs still load). */
const reportShape = z.looseObject({
  scenario: z.string(),
  ok: z.boolean(),
  tasks: z.array(z.looseObject({id: z.string(), status: z.string()})),
  accounts: z.array(z.looseObject({name: z.string(), role: z.string()})),
  disputes: z.array(z.unknown()),
  slashes: z.array(z.unknown()),
  jackpot: z.looseObject({before: z.string(), after: z.string()}),
  market: z.looseObject({series: z.array(z.unknown()), offers: z.array(z.unknown())}),
  conservation: z.looseObject({ok: z.boolean()}),
  failures: z.array(z.string()),
})

/** Reads a report.json written by `devnet up` or `devnet report`; a file that is not one fails in one line. */
export async function loadReportFile(file: string): Promise<DevnetReport> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    throw new InvalidInputError(`${file}: no report file there`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new InvalidInputError(`${file}: expected a devnet report in JSON, got text that is not JSON`)
  }
  const parsed = reportShape.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InvalidInputError(`${file}: expected a devnet report, ${issue?.path.join('.') || 'the file'}: ${issue?.message ?? 'wrong shape'}`)
  }
  return value as DevnetReport
}
