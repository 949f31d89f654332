/**
 * Writes schema/job.schema.json (JSON Schema 2020-12) from the zod job spec schema, so editors can
 * validate job.yaml files (`# yaml-language-server: $schema=...`). Run: `npm run build:schema`.
 * Cross-field rules (layer shapes, fee vs. maxFee) are enforced by `parseJobSpec` only.
 */
import {writeFile, mkdir} from 'node:fs/promises'
import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {jobSchemaJson} from '../src/ml/spec/jobSchemaJson.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(root, 'schema/job.schema.json')
await mkdir(dirname(out), {recursive: true})
await writeFile(out, jobSchemaJson())
console.log(`wrote ${out}`)
