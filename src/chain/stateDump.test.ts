import assert from 'node:assert/strict'
import {existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {keepStateDump, recoverStateDump, workingDumpPath} from './stateDump.js'

describe('the state dump: the state file only ever holds a complete dump', () => {
  let dir: string
  let file: string
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gensyn-state-dump-'))
    file = path.join(dir, 'chain.json')
  })
  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  const dumpAt = (content: string, seconds: number) => {
    writeFileSync(workingDumpPath(file), content)
    utimesSync(workingDumpPath(file), seconds, seconds)
  }

  it('promotes each complete working dump and skips one cut off mid-write', async () => {
    const keeper = keepStateDump(file, 60_000)
    await keeper.promote()
    assert.equal(existsSync(file), false, 'nothing dumped yet, nothing promoted')
    dumpAt('{"block":{"number":"0x1"}}', 1_000)
    await keeper.promote()
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x1"}}')
    dumpAt('{"block":{"number":"0x2"},"acc', 2_000)
    await keeper.promote()
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x1"}}', 'a cut-off dump replaced a complete one')
    dumpAt('{"block":{"number":"0x3"}}', 3_000)
    await keeper.finish()
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x3"}}', 'the exit dump was not promoted')
  })

  it('before a start: a complete working dump newer than the state file becomes it, anything else is dropped', async () => {
    writeFileSync(file, '{"block":{"number":"0x1"}}')
    utimesSync(file, 1_000, 1_000)
    dumpAt('{"block":{"number":"0x2"}}', 2_000)
    await recoverStateDump(file)
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x2"}}', "anvil's exit dump was lost")
    assert.equal(existsSync(workingDumpPath(file)), false)

    utimesSync(file, 2_500, 2_500)
    dumpAt('{"block":{"number":"0x3"},"bl', 3_000)
    await recoverStateDump(file)
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x2"}}', 'a cut-off dump was loaded')
    assert.equal(existsSync(workingDumpPath(file)), false)

    dumpAt('{"block":{"number":"0x0"}}', 500)
    await recoverStateDump(file)
    assert.equal(readFileSync(file, 'utf8'), '{"block":{"number":"0x2"}}', 'an older dump replaced a newer one')
  })
})
