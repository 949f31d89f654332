// Import rules for src/, checked by `npm run lint:deps` and by src/layers.test.ts (the unit tier), so a cycle or an
// upward import fails CI with the edge that broke the rule. docs/architecture.md, "Layers", says why.
//
// The folders of src/ in layers, lowest first. A file may import its own folder and any folder of a lower layer;
// never a higher layer, and never another folder of its own layer (peers are independent: `sim` runs the actors
// as processes and never calls their code). Tests (*.test.ts) are not checked: a test may import anything.
const layers = [
  ['errors'],
  // pure helpers with no protocol knowledge: seeds, an abortable sleep, the verification sample's probabilities
  ['random', 'util', 'plan'],
  ['store', 'chain'],
  ['ml'],
  ['pol', 'privacy'],
  ['protocol', 'adversary'],
  ['dispute', 'economics'],
  // the only places that combine phases: role loops, and the devnet that spawns them
  ['actors', 'sim'],
  ['ui'],
  ['commands'],
]

const tests = '\\.test\\.ts$'
const anyOf = (folders) => `^src/(${folders.join('|')})/`

function layerRules() {
  return layers.flatMap((layer, index) => {
    const higher = layers.slice(index + 1).flat()
    const below = layers.slice(0, index).flat()
    return layer.flatMap((folder) => {
      const forbidden = [...higher, ...layer.filter((other) => other !== folder)]
      if (forbidden.length === 0) return []
      return [{
        name: `layer-${folder}`,
        severity: 'error',
        comment: `src/${folder} may import itself${below.length === 0 ? '' : ` and ${below.join(', ')}`}, nothing else of src/ (docs/architecture.md, "Layers")`,
        from: {path: anyOf([folder]), pathNot: tests},
        to: {path: anyOf(forbidden)},
      }]
    })
  })
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import cycle (type-only imports count: they tie the files together just the same)',
      from: {},
      to: {circular: true},
    },
    {
      name: 'unlayered-folder',
      severity: 'error',
      comment: 'a folder of src/ that is in no layer: add it to the layers in .dependency-cruiser.cjs',
      from: {path: '^src/[^/]+/', pathNot: [anyOf(layers.flat()), tests]},
      to: {},
    },
    {
      name: 'unlayered-folder-imported',
      severity: 'error',
      comment: 'an import of a folder of src/ that is in no layer: add it to the layers in .dependency-cruiser.cjs',
      from: {pathNot: tests},
      to: {path: '^src/[^/]+/', pathNot: anyOf(layers.flat())},
    },
    ...layerRules(),
  ],
  options: {
    // only src/ itself: packages are not followed, and tests are exempt from every rule
    includeOnly: '^src/',
    exclude: {path: tests},
    tsConfig: {fileName: 'tsconfig.json'},
    // type-only imports are edges too (a cycle through a type is still a cycle in the design)
    tsPreCompilationDeps: true,
  },
}
