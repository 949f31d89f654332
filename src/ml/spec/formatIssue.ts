import type {z} from 'zod'
import {jobSpecSchema} from './schema.js'

type Issue = z.core.$ZodIssue
type Def = {type: string; shape?: Record<string, unknown>; element?: unknown; innerType?: unknown; options?: unknown[]; discriminator?: string; in?: unknown; values?: unknown[]}

/** `model.layers[1].type` style path; `(root)` for the top level. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  return out === '' ? '(root)' : out
}

/** A short description of a received value for `got ...`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (Array.isArray(value)) return `an array [${value.slice(0, 4).map(describeValue).join(', ')}${value.length > 4 ? ', ...' : ''}]`
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

const article: Record<string, string> = {
  int: 'an integer',
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  tuple: 'an array',
}

function defOf(schema: unknown): Def | undefined {
  return (schema as {_zod?: {def?: Def}} | undefined)?._zod?.def
}

/** The schema node at `path`, following the input through discriminated unions. */
function schemaAt(path: readonly PropertyKey[], input: unknown): unknown {
  let node: unknown = jobSpecSchema
  let value: unknown = input
  for (let i = 0; i <= path.length; i++) {
    // unwrap wrappers
    for (let def = defOf(node); def; def = defOf(node)) {
      if ((def.type === 'default' || def.type === 'optional' || def.type === 'nullable') && def.innerType) node = def.innerType
      else if (def.type === 'pipe' && def.in) node = def.in
      else if (def.type === 'union' && def.discriminator && def.options) {
        const tag = (value as Record<string, unknown> | undefined)?.[def.discriminator]
        node = def.options.find((option) => {
          const literal = defOf(defOf(option)?.shape?.[def.discriminator as string])
          return literal?.values?.includes(tag)
        })
      } else if (def.type === 'union' && def.options) node = def.options[bestOption(def.options, value)]
      else break
    }
    if (i === path.length) return node
    const key = path[i]
    const def = defOf(node)
    if (def?.type === 'object' && typeof key === 'string') node = def.shape?.[key]
    else if (def?.type === 'array' && typeof key === 'number') node = def.element
    else return undefined
    value = (value as Record<PropertyKey, unknown> | undefined)?.[key as string]
  }
  return node
}

/** The option of a plain union that a value most likely meant: the object whose keys it shares most. */
function bestOption(options: readonly unknown[], value: unknown): number {
  const keys = value !== null && typeof value === 'object' ? Object.keys(value) : []
  const scores = options.map((option) => {
    let def = defOf(option)
    while (def && (def.type === 'default' || def.type === 'optional') && def.innerType) def = defOf(def.innerType)
    const shape = def?.type === 'object' ? Object.keys(def.shape ?? {}) : []
    return keys.filter((key) => shape.includes(key)).length - keys.filter((key) => !shape.includes(key)).length
  })
  return scores.indexOf(Math.max(...scores))
}

function valueAt(path: readonly PropertyKey[], input: unknown): unknown {
  let value = input
  for (const key of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key as string]
  return value
}

/**
 * One line for one zod issue: `<field path>: expected <what>, got <value>`. `input` is the whole parsed
 * YAML document, used to report what was received and which keys are allowed.
 */
export function formatIssue(issue: Issue, input: unknown): string {
  const path = formatPath(issue.path)
  const got = describeValue('input' in issue ? issue.input : valueAt(issue.path, input))
  switch (issue.code) {
    case 'invalid_type': {
      const received = valueAt(issue.path, input)
      const expected = article[issue.expected] ?? issue.expected
      return received === undefined ? `${path}: required, expected ${expected}` : `${path}: expected ${expected}, got ${describeValue(received)}`
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small'
      const bound = small ? issue.minimum : issue.maximum
      if (issue.origin === 'array' || issue.origin === 'string' || issue.origin === 'set') {
        const unit = issue.origin === 'string' ? 'characters' : 'items'
        return `${path}: expected ${small ? 'at least' : 'at most'} ${bound} ${unit}, got ${got}`
      }
      if (small && Number(bound) === 0 && issue.inclusive === false) return `${path}: expected a positive number, got ${got}`
      const op = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<'
      return `${path}: expected a number ${op} ${String(bound)}, got ${got}`
    }
    case 'invalid_value':
      return `${path}: expected one of ${issue.values.map((v) => (typeof v === 'string' ? v : String(v))).join(', ')}, got ${got}`
    case 'invalid_union': {
      if ('discriminator' in issue && typeof issue.discriminator === 'string') {
        // the path ends at the discriminator key; the union is the schema of the object holding it
        const unionDef = unionBefore(issue.path.slice(0, -1), input)
        const tags = unionDef?.options?.flatMap((o) => defOf(defOf(o)?.shape?.[issue.discriminator as string])?.values ?? []) ?? []
        return `${path}: expected one of ${tags.join(', ')}, got ${describeValue(valueAt(issue.path, input))}`
      }
      // a plain union (dataset: MNIST or a file): report the first problem of the form the input is closest to
      const unionDef = unionBefore(issue.path, input)
      const branch = unionDef?.options ? issue.errors[bestOption(unionDef.options, valueAt(issue.path, input))] : undefined
      const first = branch?.[0]
      if (first) return formatIssue({...first, path: [...issue.path, ...first.path]} as Issue, input)
      return `${path}: expected one of the allowed forms, got ${got}`
    }
    case 'unrecognized_keys': {
      const key = issue.keys[0] ?? ''
      const keyPath = formatPath([...issue.path, key])
      const node = defOf(schemaAt(issue.path, input))
      const allowed = node?.type === 'object' ? Object.keys(node.shape ?? {}) : []
      const more = issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more unknown)` : ''
      return allowed.length > 0
        ? `${keyPath}: unknown key, expected one of ${allowed.join(', ')}${more}`
        : `${keyPath}: unknown key${more}`
    }
    case 'invalid_format':
      return `${path}: ${issue.message.startsWith('expected') ? issue.message : `expected ${issue.format}`}, got ${got}`
    case 'not_multiple_of':
      return `${path}: expected a multiple of ${String(issue.divisor)}, got ${got}`
    case 'custom':
      return `${path}: ${issue.message}`
    default:
      return `${path}: ${issue.message}`
  }
}

function unionBefore(path: readonly PropertyKey[], input: unknown): Def | undefined {
  // The schema node at `path` before the discriminated union is resolved.
  const parent = defOf(schemaAt(path.slice(0, -1), input))
  const key = path[path.length - 1]
  let node: unknown
  if (path.length === 0) node = jobSpecSchema
  else if (parent?.type === 'object' && typeof key === 'string') node = parent.shape?.[key]
  else if (parent?.type === 'array' && typeof key === 'number') node = parent.element
  for (let def = defOf(node); def; def = defOf(node)) {
    if (def.type === 'union') return def
    if ((def.type === 'default' || def.type === 'optional') && def.innerType) node = def.innerType
    else return undefined
  }
  return undefined
}
