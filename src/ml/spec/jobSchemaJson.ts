import {z} from 'zod'
import {jobSpecSchema} from './schema.js'

/**
 * The job spec's JSON Schema text (as committed in schema/job.schema.json): the input form, so fields
 * with defaults are optional. Ends with a newline.
 */
export function jobSchemaJson(): string {
  const schema = z.toJSONSchema(jobSpecSchema, {io: 'input', unrepresentable: 'any'})
  const withId = {
    $schema: schema.$schema,
    $id: 'https://gensyn.local/schema/job.schema.json',
    title: 'gensyn job spec',
    ...schema,
  }
  return `${JSON.stringify(withId, null, 2)}\n`
}
