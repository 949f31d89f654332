import {readFile} from 'node:fs/promises'
import {JobSpecError} from './errors.js'
import {parseJobSpec} from './parseJobSpec.js'
import {resolveFixturePath} from './resolveFixturePath.js'
import type {JobSpec} from './schema.js'

/**
 * Reads and validates a job spec file (YAML or JSON); a bare name (`smoke-mlp`) names a shipped fixture job.
 *
 * @throws JobSpecError `job spec not found: <path>`, or any {@link parseJobSpec} error (messages are
 *   prefixed with the path)
 */
export async function loadJobSpec(argument: string): Promise<JobSpec> {
  const path = resolveFixturePath('jobs', argument)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new JobSpecError(`job spec not found: ${path}`, {cause: error})
    if (code === 'EISDIR') throw new JobSpecError(`job spec path is a directory, expected a YAML file: ${path}`, {cause: error})
    throw new JobSpecError(`job spec not readable: ${path} (${code ?? String(error)})`, {cause: error})
  }
  return parseJobSpec(text, path)
}
