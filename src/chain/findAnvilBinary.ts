import {accessSync, constants, statSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'

import {AnvilNotFoundError} from './errors.js'

export type AnvilBinary = {
  /** Absolute path of the executable. */
  path: string
  /** Where it came from: `GENSYN_ANVIL_BIN`, the `@foundry-rs/anvil-<platform>-<arch>` package, or PATH. */
  source: 'env' | 'package' | 'path'
}

export type FindAnvilBinaryOptions = {
  env?: NodeJS.ProcessEnv
  platform?: NodeJS.Platform
  arch?: string
}

/** npm's platform package for anvil, as `@foundry-rs/anvil` names them (its const.mjs). */
export function anvilPackageName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const cpu = arch === 'x64' ? 'amd64' : arch === 'arm64' ? 'arm64' : undefined
  if (!cpu) return undefined
  if (platform === 'linux' || platform === 'darwin') return `@foundry-rs/anvil-${platform}-${cpu}`
  if (platform === 'win32' && cpu === 'amd64') return '@foundry-rs/anvil-win32-amd64'
  return undefined
}

/**
 * Finds the anvil executable, in this order:
 * 1. `GENSYN_ANVIL_BIN` (an explicit choice always wins; it must exist and be executable);
 * 2. the binary shipped by the `@foundry-rs/anvil-<platform>-<arch>` npm package in node_modules;
 * 3. an `anvil` on PATH, only when no platform package is installed (unsupported platform, or installed
 *    with `--omit=optional`).
 *
 * A system anvil on PATH does not override the npm one: the pinned npm binary is the version the contracts
 * and tests are checked against (its default hardfork, its RPC behaviour such as printing the port it bound
 * for `--port 0`), and a stray older foundryup install must not silently change a devnet run. To use the
 * system anvil anyway, set `GENSYN_ANVIL_BIN=$(command -v anvil)`.
 */
export function findAnvilBinary(options: FindAnvilBinaryOptions = {}): AnvilBinary {
  const env = options.env ?? process.env
  const platform = options.platform ?? process.platform
  const arch = options.arch ?? process.arch
  const exe = platform === 'win32' ? 'anvil.exe' : 'anvil'

  const fromEnv = env.GENSYN_ANVIL_BIN
  if (fromEnv) {
    const resolved = path.resolve(fromEnv)
    if (!isExecutable(resolved)) {
      throw new AnvilNotFoundError(`GENSYN_ANVIL_BIN: expected an executable anvil binary, got ${resolved}`, {
        details: 'unset GENSYN_ANVIL_BIN to use the anvil from the @foundry-rs/anvil npm package',
      })
    }
    return {path: resolved, source: 'env'}
  }

  const packageName = anvilPackageName(platform, arch)
  const searched: string[] = []
  if (packageName) {
    const fromPackage = resolvePackageBinary(packageName, exe)
    if (fromPackage) return {path: fromPackage, source: 'package'}
    searched.push(`npm package ${packageName}`)
  } else {
    searched.push(`npm package for ${platform}-${arch} (none published)`)
  }

  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    const candidate = path.resolve(dir, exe)
    if (isExecutable(candidate)) return {path: candidate, source: 'path'}
  }
  searched.push('PATH')

  throw new AnvilNotFoundError(`no anvil binary found (looked in: ${searched.join(', ')})`, {
    details: 'reinstall with optional dependencies (npm install --include=optional) or set GENSYN_ANVIL_BIN',
  })
}

/** The platform package is an optional dependency of `@foundry-rs/anvil`: usually hoisted, else nested. */
function resolvePackageBinary(packageName: string, exe: string): string | undefined {
  const require = createRequire(import.meta.url)
  const bases: (() => string)[] = [
    () => require.resolve(`${packageName}/package.json`),
    () => createRequire(require.resolve('@foundry-rs/anvil/package.json')).resolve(`${packageName}/package.json`),
  ]
  for (const base of bases) {
    let manifest: string
    try {
      manifest = base()
    } catch {
      continue
    }
    const candidate = path.join(path.dirname(manifest), 'bin', exe)
    if (isExecutable(candidate)) return candidate
  }
  return undefined
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}
