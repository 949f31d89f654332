import {createHash} from 'node:crypto'
import {mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Abi, Hex} from 'viem'

const require = createRequire(import.meta.url)
type ImportResult = {contents: string} | {error: string}
const solc = require('solc') as {compile(input: string, callbacks?: {import(path: string): ImportResult}): string; version(): string}

const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const repoRoot = path.resolve(fixturesDir, '..', '..', '..')
const contractsDir = path.join(repoRoot, 'contracts')
const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'gensyn-fixtures')

/**
 * Fixtures import production contracts by repository path (`import "contracts/X.sol"`), and only those: the cache
 * key ({@link inputHash}) covers contracts/ and the fixtures, so an import from anywhere else could go stale unseen.
 */
function findImports(importPath: string): ImportResult {
  const absolute = path.resolve(repoRoot, importPath)
  if (!absolute.startsWith(contractsDir + path.sep)) return {error: `fixtures import only contracts/*.sol, got ${importPath}`}
  try {
    return {contents: readFileSync(absolute, 'utf8')}
  } catch {
    return {error: `file not found: ${importPath}`}
  }
}

export type CompiledContract = {abi: Abi; bytecode: Hex}

let cache: Map<string, CompiledContract> | undefined

/**
 * Compiles test/contracts/fixtures/*.sol with solc-js, with the same settings as scripts/build-contracts.mjs
 * (cancun, optimizer on). Test-only contracts never reach src/chain/generated/. The output is kept in
 * node_modules/.cache/gensyn-fixtures under a hash of everything that goes into it (solc's version, the input,
 * every contract the fixtures can import): solc-js took 6-7 s of CPU for it in each mocha worker that ran a
 * contract test (docs/testing.md, "Where the CPU goes").
 */
export function compileFixtures(): Map<string, CompiledContract> {
  if (cache) return cache
  const input = JSON.stringify(fixturesInput())
  const cached = path.join(cacheDir, `${inputHash(input)}.json`)
  let output: Output
  try {
    output = JSON.parse(readFileSync(cached, 'utf8')) as Output
  } catch {
    output = JSON.parse(solc.compile(input, {import: findImports})) as Output
    const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error')
    if (errors.length > 0) throw new Error(`fixture contracts do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
    keep(cached, output)
  }
  cache = new Map()
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, artifact] of Object.entries(contracts)) {
      cache.set(name, {abi: artifact.abi, bytecode: `0x${artifact.evm.bytecode.object}`})
    }
  }
  return cache
}

type Output = {
  errors?: {severity: string; formattedMessage: string}[]
  contracts?: Record<string, Record<string, {abi: Abi; evm: {bytecode: {object: string}}}>>
}

function fixturesInput() {
  const sources: Record<string, {content: string}> = {}
  for (const file of readdirSync(fixturesDir).filter((name) => name.endsWith('.sol'))) {
    sources[file] = {content: readFileSync(path.join(fixturesDir, file), 'utf8')}
  }
  return {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      optimizer: {enabled: true, runs: 200},
      outputSelection: {'*': {'*': ['abi', 'evm.bytecode.object']}},
    },
  }
}

/** The input, solc's version and every contract under contracts/ (what the fixtures import), hashed. */
function inputHash(input: string): string {
  const hash = createHash('sha256').update(solc.version()).update(input)
  for (const file of readdirSync(contractsDir, {recursive: true}).map(String).filter((name) => name.endsWith('.sol')).sort()) {
    hash.update(file).update(readFileSync(path.join(contractsDir, file)))
  }
  return hash.digest('hex').slice(0, 32)
}

/** Written beside and renamed into place: mocha's workers compile at once, and none may read half a file. */
function keep(file: string, output: Output): void {
  try {
    mkdirSync(path.dirname(file), {recursive: true})
    const partial = `${file}.${process.pid}.partial`
    writeFileSync(partial, JSON.stringify({contracts: output.contracts}))
    renameSync(partial, file)
  } catch {
    // a read-only node_modules: the next run compiles again
  }
}

export function fixture(name: string): CompiledContract {
  const compiled = compileFixtures().get(name)
  if (!compiled) throw new Error(`no fixture contract named ${name}`)
  return compiled
}
