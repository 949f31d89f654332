// A mocha root-hook plugin that records when each test file starts and ends, for `scripts/test-timeline.mjs`
// (docs/testing.md, "Where the CPU goes"). Opt-in: it writes only when GENSYN_TEST_TIMELINE names a file.
//
//   GENSYN_TEST_TIMELINE=/tmp/timeline.log npx mocha --require test/support/fileTimeline.cjs
//   node scripts/test-timeline.mjs /tmp/timeline.log
const {appendFileSync} = require('node:fs')

const target = process.env.GENSYN_TEST_TIMELINE

/** The file of the suite a root hook runs for: in parallel mode each worker's root suite holds one file. */
function fileOf(context) {
  const root = context.test && context.test.parent
  return (root && (root.file || (root.suites[0] && root.suites[0].file))) || '?'
}

function record(event, context) {
  if (target) appendFileSync(target, `${event} ${Date.now()} ${process.pid} ${fileOf(context)}\n`)
}

exports.mochaHooks = {
  beforeAll() {
    record('start', this)
  },
  afterAll() {
    record('end', this)
  },
}
