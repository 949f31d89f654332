import {z} from 'zod'

import {scenarioSchema} from './scenario.js'

/**
 * The scenario's JSON Schema text (as committed in schema/scenario.schema.json): the input form, so fields with
 * defaults are optional. Editors validate scenario files with it (`# yaml-language-server: $schema=...`).
 */
export function scenarioSchemaJson(): string {
  const schema = z.toJSONSchema(scenarioSchema, {io: 'input', unrepresentable: 'any'})
  const withId = {
    $schema: schema.$schema,
    $id: 'https://gensyn.local/schema/scenario.schema.json',
    title: 'gensyn devnet scenario',
    ...schema,
    // The loader's rule that zod cannot carry into the schema: at least one job, unless the scenario has a crowd.
    anyOf: [{required: ['crowd']}, {required: ['jobs'], properties: {jobs: {minItems: 1, description: 'at least one job, unless the scenario has a crowd'}}}],
  }
  return `${JSON.stringify(withId, null, 2)}\n`
}
