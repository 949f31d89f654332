import {parseDocument} from 'yaml'
import {JobSpecError} from './errors.js'
import {formatIssue} from './formatIssue.js'
import {jobSpecSchema, type JobSpec} from './schema.js'
import {sizeVerificationSample} from './sizeVerificationSample.js'

/**
 * Parses and validates a job spec from YAML (or JSON) text. Defaults are filled in.
 *
 * @param source file name used in messages (default `job.yaml`)
 * @throws JobSpecError `job.yaml:3:5: malformed YAML: ...` or `<field>: expected ..., got ...` (all
 *   problems in `details`)
 */
export function parseJobSpec(text: string, source = 'job.yaml'): JobSpec {
  const doc = parseDocument(text, {prettyErrors: true, uniqueKeys: true})
  const yamlError = doc.errors[0]
  if (yamlError) {
    const pos = yamlError.linePos?.[0]
    const where = pos ? `${source}:${pos.line}:${pos.col}` : source
    const firstLine = (yamlError.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')
    throw new JobSpecError(`${where}: malformed YAML: ${firstLine}`, {
      details: doc.errors.map((e) => e.message.split('\n')[0]).join('; '),
      cause: yamlError,
    })
  }
  const input: unknown = doc.toJS({maxAliasCount: 100})
  if (input === null || input === undefined) throw new JobSpecError(`${source}: empty job spec, expected a YAML mapping`)
  const result = jobSpecSchema.safeParse(input, {reportInput: true})
  if (result.success) return sizeVerificationSample(result.data, explicitSegments(input), source)
  const lines = result.error.issues.map((issue) => formatIssue(issue, input))
  const first = result.error.issues[0]
  throw new JobSpecError(`${source}: ${lines[0] ?? 'invalid job spec'}`, {
    details: lines.length > 1 ? lines.join('; ') : undefined,
    field: first ? lines[0]?.split(':')[0] : undefined,
    cause: result.error,
  })
}

/** `verification.segments` as written (undefined when the default would fill it in). */
function explicitSegments(input: unknown): unknown {
  const verification = typeof input === 'object' && input !== null ? (input as {verification?: unknown}).verification : undefined
  return typeof verification === 'object' && verification !== null ? (verification as {segments?: unknown}).segments : undefined
}
