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
  }
  return `${JSON.stringify(withId, null, 2)}\n`
}
