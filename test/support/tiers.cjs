// The suite's tiers, by where a test file lives and how it is named (docs/testing.md):
//   unit      src/**/*.test.ts and test/helpers/*.test.ts: no chain, no process, a few training steps at most
//   training  *.training.test.ts: real training runs long enough to learn, prove or replay (no chain)
//   fuzz      *.fuzz.test.ts and *.property.test.ts: thousands of generated inputs or action sequences
//   chain     *.chain.test.ts and test/contracts/: contracts and actors on a real anvil
//   e2e       *.e2e.test.ts, test/e2e/, test/cli/ and test/*.test.ts: devnets and the built CLI as real processes
// GENSYN_TEST_TIER picks tiers (comma-separated; unset: all). The slowest tiers come first so that mocha's
// parallel workers never wait on one long file at the end of the run.
const {readdirSync} = require('node:fs')
const path = require('node:path')

const ORDER = ['fuzz', 'e2e', 'chain', 'training', 'unit']

function tierOf(file) {
  if (/\.(fuzz|property)\.test\.ts$/.test(file)) return 'fuzz'
  if (/\.e2e\.test\.ts$/.test(file) || /^test\/(e2e|cli)\//.test(file) || /^test\/[^/]+\.test\.ts$/.test(file)) return 'e2e'
  if (/\.chain\.test\.ts$/.test(file) || file.startsWith('test/contracts/')) return 'chain'
  if (/\.training\.test\.ts$/.test(file)) return 'training'
  return 'unit'
}

function testFiles(root) {
  return ['src', 'test']
    .flatMap((dir) => readdirSync(path.join(root, dir), {recursive: true}).map((file) => path.posix.join(dir, String(file).split(path.sep).join('/'))))
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
}

function selectTiers(value) {
  if (!value) return ORDER
  const tiers = value.split(',').map((tier) => tier.trim())
  const unknown = tiers.filter((tier) => !ORDER.includes(tier))
  if (unknown.length > 0) throw new Error(`GENSYN_TEST_TIER: unknown tier ${unknown.join(', ')}; expected some of ${ORDER.join(', ')}`)
  return tiers
}

/** The test files of the chosen tiers, slowest tier first. */
function specFor(root, value) {
  const tiers = selectTiers(value)
  const files = testFiles(root)
  return ORDER.filter((tier) => tiers.includes(tier)).flatMap((tier) => files.filter((file) => tierOf(file) === tier))
}

module.exports = {ORDER, tierOf, specFor}
