import assert from 'node:assert/strict'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {spawnActor} from './spawnActor.js'

describe('spawnActor logs (the built CLI as a real process)', function () {
  this.timeout(60_000)
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-actor-log-'))
  })
  afterEach(() => rm(dir, {recursive: true, force: true}))

  it("writes every line to the state dir's log (appended) and to the run folder's (this run only)", async () => {
    const latest = path.join(dir, 'logs')
    const thisRun = path.join(dir, 'runs', 'now', 'logs')
    await mkdir(latest, {recursive: true})
    await mkdir(thisRun, {recursive: true})
    await writeFile(path.join(latest, 'solver-1.log'), 'a line from the run before\n')
    // A flag the CLI rejects: one line on stderr, then exit 2; real output on both of the process's streams.
    const actor = spawnActor({name: 'solver-1', role: 'solver', account: 0, args: ['tasks', 'list', '--status', 'NoSuchStatus'], logDirs: [latest, thisRun]})
    const exit = await actor.exited
    assert.notEqual(exit.exitCode, 0)
    const runLog = await readFile(path.join(thisRun, 'solver-1.log'), 'utf8')
    assert.match(runLog, /NoSuchStatus/)
    assert.equal(await readFile(path.join(latest, 'solver-1.log'), 'utf8'), `a line from the run before\n${runLog}`)
  })
})
