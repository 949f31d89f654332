import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/**
 * The folder gensyn is installed in (its package.json), found by walking up from this module. A fixed number
 * of `..` would not do: the CLI's commands run from an esbuild bundle (dist/cli, scripts/bundle-cli.mjs), where
 * a module's code sits in a chunk at another depth than its file in src/ or dist/.
 */
export const packageRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)))

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as {name?: string}).name === 'gensyn') return dir
    if (path.dirname(dir) === dir) throw new Error(`gensyn's package.json not found above ${start}`)
  }
}
