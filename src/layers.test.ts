import assert from 'node:assert/strict'
import {mkdtemp, mkdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {cruise, type ICruiseResult} from 'dependency-cruiser'
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Each broken rule as one line: the rule, then the edge (or the whole cycle) that breaks it. */
async function violations(baseDir: string): Promise<string[]> {
  const config = await extractDepcruiseConfig(path.join(root, '.dependency-cruiser.cjs'))
  const tsConfig = extractTSConfig(path.join(root, 'tsconfig.json'))
  const {output} = await cruise(['src'], {...config.options, baseDir, ruleSet: {forbidden: config.forbidden}, validate: true}, {}, {tsConfig})
  const result = output as ICruiseResult
  return result.summary.violations.map((violation) => {
    const edge = violation.cycle ? [violation.from, ...violation.cycle.map((step) => step.name)] : [violation.from, violation.to]
    return `${violation.rule.name}: ${edge.join(' → ')}`
  })
}

// One cruise of src/ (about 450 modules, a few seconds), the same rules `npm run lint:deps` applies in CI.
describe('imports of src/ (.dependency-cruiser.cjs, docs/architecture.md "Layers")', function () {
  it('form no cycle and never import a higher layer or a peer folder', async function () {
    const broken = await violations(root)
    assert.deepEqual(broken, [], `imports that break the layer rules:\n  ${broken.join('\n  ')}`)
  })

  it('name the edge that imports a higher layer, a peer or an unlayered folder, and the files of a cycle', async function () {
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-layers-'))
    try {
      const files: Record<string, string> = {
        // upward (ml is below pol) and, with the import back, a cycle
        'src/ml/train.ts': "import {root} from '../pol/merkle.js'\nexport const train = () => root()\n",
        'src/pol/merkle.ts': "import {train} from '../ml/train.js'\nexport const root = () => typeof train\n",
        // sideways: sim and actors are peers
        'src/sim/devnet.ts': "import {sleep} from '../actors/sleep.js'\nexport const devnet = () => sleep()\n",
        'src/actors/sleep.ts': 'export const sleep = () => 0\n',
        // a folder nobody put in a layer
        'src/misc/helper.ts': "import {sleep} from '../actors/sleep.js'\nexport const helper = () => sleep()\n",
        'src/ui/view.ts': "import {helper} from '../misc/helper.js'\nexport const view = () => helper()\n",
      }
      for (const [file, text] of Object.entries(files)) {
        await mkdir(path.dirname(path.join(dir, file)), {recursive: true})
        await writeFile(path.join(dir, file), text)
      }
      const broken = await violations(dir)
      assert.deepEqual(broken.sort(), [
        'layer-ml: src/ml/train.ts → src/pol/merkle.ts',
        'layer-sim: src/sim/devnet.ts → src/actors/sleep.ts',
        'no-circular: src/ml/train.ts → src/pol/merkle.ts → src/ml/train.ts',
        'unlayered-folder-imported: src/ui/view.ts → src/misc/helper.ts',
        'unlayered-folder: src/misc/helper.ts → src/actors/sleep.ts',
      ])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
