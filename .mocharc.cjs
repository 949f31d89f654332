// mocha's settings; the files come from the test tiers (test/support/tiers.cjs, docs/testing.md).
const {specFor} = require('./test/support/tiers.cjs')

// mocha adds the config's spec to the files named on the command line, so `npx mocha path/to/file.test.ts`
// would run the whole suite too: the tiers apply only when no test file is named.
const namesFiles = process.argv.slice(2).some((arg) => !arg.startsWith('-') && /\.test\.ts$|\*/.test(arg))

module.exports = {
  import: 'tsx',
  require: ['test/support/pendingReport.ts'],
  timeout: 120000,
  exit: true,
  parallel: true,
  // Four files at a time on 2 cores: the devnet files wait on blocks and actor processes about as long as they
  // compute, and with three the machine was busy 146-150 % of 200 %; four took 806 s instead of 873 s on the same
  // tree (docs/testing.md, "Where the CPU goes").
  jobs: 4,
  ...(namesFiles ? {} : {spec: specFor(__dirname, process.env.GENSYN_TEST_TIER)}),
}
