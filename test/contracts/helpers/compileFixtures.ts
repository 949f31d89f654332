import {readdirSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {Abi, Hex} from 'viem'

const require = createRequire(import.meta.url)
type ImportResult = {contents: string} | {error: string}
const solc = require('solc') as {compile(input: string, callbacks?: {import(path: string): ImportResult}): string}

const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const repoRoot = path.resolve(fixturesDir, '..', '..', '..')

/** Fixtures import production contracts by repository path (`import "contracts/X.sol"`). */
function findImports(importPath: string): ImportResult {
  const absolute = path.resolve(repoRoot, importPath)
  if (!absolute.startsWith(repoRoot + path.sep)) return {error: `import outside the repository: ${importPath}`}
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
 * (cancun, optimizer on). Test-only contracts never reach src/chain/generated/.
 */
export function compileFixtures(): Map<string, CompiledContract> {
  if (cache) return cache
  const sources: Record<string, {content: string}> = {}
  for (const file of readdirSync(fixturesDir).filter((name) => name.endsWith('.sol'))) {
    sources[file] = {content: readFileSync(path.join(fixturesDir, file), 'utf8')}
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      optimizer: {enabled: true, runs: 200},
      outputSelection: {'*': {'*': ['abi', 'evm.bytecode.object']}},
    },
  }
  type Output = {
    errors?: {severity: string; formattedMessage: string}[]
    contracts?: Record<string, Record<string, {abi: Abi; evm: {bytecode: {object: string}}}>>
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input), {import: findImports})) as Output
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error')
  if (errors.length > 0) throw new Error(`fixture contracts do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  cache = new Map()
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, artifact] of Object.entries(contracts)) {
      cache.set(name, {abi: artifact.abi, bytecode: `0x${artifact.evm.bytecode.object}`})
    }
  }
  return cache
}

export function fixture(name: string): CompiledContract {
  const compiled = compileFixtures().get(name)
  if (!compiled) throw new Error(`no fixture contract named ${name}`)
  return compiled
}
