/**
 * Writes schema/job.schema.json and schema/scenario.schema.json (JSON Schema 2020-12) from the zod schemas, so
 * editors can validate job.yaml and scenario files (`# yaml-language-server: $schema=...`). Run:
 * `npm run build:schema`. Cross-field rules (layer shapes, split ranges) are enforced by the parsers only.
 */
import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {jobSchemaJson} from '../src/ml/spec/jobSchemaJson.js'
import {scenarioSchemaJson} from '../src/sim/scenarioSchemaJson.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
for (const [name, text] of [
  ['job.schema.json', jobSchemaJson()],
  ['scenario.schema.json', scenarioSchemaJson()],
] as const) {
  const out = resolve(root, 'schema', name)
  await mkdir(dirname(out), {recursive: true})
  await writeFile(out, text)
  console.log(`wrote ${out}`)
}
