#!/usr/bin/env node
// Compiles contracts/*.sol with solc-js (the `solc` npm package: no native solc, no download) and writes one
// typed module per contract into src/chain/generated/:
//
//   src/chain/generated/<ContractName>.ts   export const <camelName>Abi = [...] as const
//                                           export const <camelName>Bytecode = '0x...' as const
//   src/chain/generated/index.ts            re-exports every module
//
// The folder is git-ignored and rebuilt from scratch on every run (nothing is cached), so it can never be out
// of date with contracts/. Any compiler error fails the build with the compiler's own formatted messages and
// exit code 1; warnings are printed but do not fail it.
//
// Usage: node scripts/build-contracts.mjs [--quiet]
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const require = createRequire(import.meta.url)
const solc = require('solc')

/** EVM version the bytecode targets: anvil 1.7 runs prague by default and supports cancun. */
const EVM_VERSION = 'cancun'
const OPTIMIZER_RUNS = 200

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const contractsDir = join(root, 'contracts')
const outDir = join(root, 'src', 'chain', 'generated')
const quiet = process.argv.includes('--quiet')

class BuildError extends Error {}

/**
 * TaskMarketBase clears an attempt's fields with a loop over the Task struct's slots (`_clearAttemptSlots`), from
 * the slot of `solver` up to that of `solverReward` (the rewards are never stored, and the last fields): its two
 * constants must match the compiler's layout, or a reopened task would keep a field of its last attempt. The build
 * checks them.
 */
const TASK_LAYOUT = {unit: 'contracts/TaskMarketBase.sol', contract: 'TaskMarketBase', struct: 'Task', firstAttemptField: 'solver', unstoredFrom: 'solverReward'}

function checkTaskLayout(output, sources) {
  const layout = output.contracts?.[TASK_LAYOUT.unit]?.[TASK_LAYOUT.contract]?.storageLayout
  const struct = Object.values(layout?.types ?? {}).find((type) => type.label === `struct ${TASK_LAYOUT.contract}.${TASK_LAYOUT.struct}`)
  if (!struct) throw new BuildError(`no storage layout for ${TASK_LAYOUT.contract}.${TASK_LAYOUT.struct}`)
  const members = struct.members.map((member) => ({...member, slot: Number(member.slot)}))
  const slotOf = (label) => members.find((member) => member.label === label)?.slot
  const first = slotOf(TASK_LAYOUT.firstAttemptField)
  const end = slotOf(TASK_LAYOUT.unstoredFrom)
  // Nothing but the unstored rewards may sit at or after `end`.
  const after = members.filter((member) => member.slot >= end && !['solverReward', 'verifierReward'].includes(member.label)).map((member) => member.label)
  const source = sources[TASK_LAYOUT.unit].content
  const constant = (name) => Number(new RegExp(`\\b${name}\\s*=\\s*(\\d+)`).exec(source)?.[1])
  if (constant('ATTEMPT_SLOTS_FROM') !== first || constant('ATTEMPT_SLOTS_END') !== end || after.length > 0) {
    throw new BuildError(
      `${TASK_LAYOUT.unit}: ATTEMPT_SLOTS_FROM must be ${first} (the slot of ${TASK_LAYOUT.firstAttemptField}) and ATTEMPT_SLOTS_END ${end} (the slot of ${TASK_LAYOUT.unstoredFrom}), with only the rewards from there on; they are ${constant('ATTEMPT_SLOTS_FROM')} and ${constant('ATTEMPT_SLOTS_END')}${after.length > 0 ? `, and ${after.join(', ')} follow the rewards` : ''}`,
    )
  }
}

/** Source unit name for a file under the repository root, with forward slashes (what solc expects). */
function unitName(absolutePath) {
  return relative(root, absolutePath).split(sep).join('/')
}

/** Lower-cases the leading capital run: TaskMarket -> taskMarket, ERC20Token -> erc20Token. */
function camelName(name) {
  const match = /^[A-Z]+(?=[A-Z][a-z]|[^A-Za-z]|$)/.exec(name)
  if (match && match[0].length > 1) return match[0].toLowerCase() + name.slice(match[0].length)
  return name.charAt(0).toLowerCase() + name.slice(1)
}

function readSources() {
  let files
  try {
    files = readdirSync(contractsDir).filter((f) => f.endsWith('.sol')).sort()
  } catch (error) {
    throw new BuildError(`cannot read contracts/: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (files.length === 0) throw new BuildError('no .sol files found in contracts/')
  /** @type {Record<string, {content: string}>} */
  const sources = {}
  for (const file of files) {
    const path = join(contractsDir, file)
    sources[unitName(path)] = {content: readFileSync(path, 'utf8')}
  }
  return sources
}

/** Import callback: resolves imports that are not already among the sources, inside the repository only. */
function findImports(path) {
  const absolute = resolve(root, path)
  if (!absolute.startsWith(root + sep)) return {error: `import outside the repository: ${path}`}
  try {
    return {contents: readFileSync(absolute, 'utf8')}
  } catch {
    return {error: `file not found: ${path}`}
  }
}

function compile(sources) {
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: {enabled: true, runs: OPTIMIZER_RUNS},
      outputSelection: {
        '*': {'*': ['abi', 'evm.bytecode.object']},
        [TASK_LAYOUT.unit]: {[TASK_LAYOUT.contract]: ['abi', 'evm.bytecode.object', 'storageLayout']},
      },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), {import: findImports}))
  const diagnostics = output.errors ?? []
  const errors = diagnostics.filter((d) => d.severity === 'error')
  const warnings = diagnostics.filter((d) => d.severity !== 'error')
  if (!quiet) for (const w of warnings) process.stderr.write(w.formattedMessage)
  if (errors.length > 0) {
    const text = errors.map((e) => e.formattedMessage ?? e.message).join('\n')
    throw new BuildError(`solc ${solc.version()} reported ${errors.length} error(s):\n\n${text}`)
  }
  return output
}

function render(name, abi, bytecode) {
  const camel = camelName(name)
  return [
    `// Generated by scripts/build-contracts.mjs from contracts/ with solc ${solc.version()} (evm ${EVM_VERSION},`,
    `// optimizer ${OPTIMIZER_RUNS} runs). Do not edit: run \`npm run build:contracts\`.`,
    `export const ${camel}Abi = ${JSON.stringify(abi, null, 2)} as const`,
    '',
    `export const ${camel}Bytecode = '0x${bytecode}' as const`,
    '',
  ].join('\n')
}

function main() {
  const started = Date.now()
  const sources = readSources()
  const output = compile(sources)
  checkTaskLayout(output, sources)

  /** @type {string[]} */
  const names = []
  /** @type {Map<string, string>} */
  const modules = new Map()
  // Only contracts defined in contracts/*.sol get a module (not ones pulled in through imports elsewhere).
  for (const unit of Object.keys(sources)) {
    for (const [name, artifact] of Object.entries(output.contracts?.[unit] ?? {})) {
      if (modules.has(name)) throw new BuildError(`two contracts are named ${name}: names must be unique`)
      modules.set(name, render(name, artifact.abi, artifact.evm?.bytecode?.object ?? ''))
      names.push(name)
    }
  }
  names.sort()

  rmSync(outDir, {recursive: true, force: true})
  mkdirSync(outDir, {recursive: true})
  for (const [name, text] of modules) writeFileSync(join(outDir, `${name}.ts`), text)
  const index = [
    '// Generated by scripts/build-contracts.mjs. Do not edit.',
    ...names.map((n) => `export {${camelName(n)}Abi, ${camelName(n)}Bytecode} from './${n}.js'`),
    '',
  ].join('\n')
  writeFileSync(join(outDir, 'index.ts'), index)

  if (!quiet) {
    console.log(
      `compiled ${names.join(', ')} with solc ${solc.version()} -> ${unitName(outDir)}/ in ${Date.now() - started} ms`,
    )
  }
}

try {
  main()
} catch (error) {
  if (error instanceof BuildError) {
    console.error(`build-contracts: ${error.message}`)
    process.exit(1)
  }
  throw error
}
