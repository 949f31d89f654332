import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {InvalidInputError} from '../errors/base.js'
import {lastRunState, recordRun, runFolder} from './runRecord.js'
import {resolveDefaultScenario} from './scenario.js'

describe('run records: a folder per run, and what --resume continues', () => {
  let stateDir: string
  beforeEach(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-runs-'))
  })
  afterEach(async () => {
    await rm(stateDir, {recursive: true, force: true})
  })

  it('names a run folder by its UTC start and scenario, safe on any file system', () => {
    const folder = runFolder('/s', 'my scenario/v2', new Date('2026-11-27T06:01:02.345Z'))
    assert.equal(folder, path.join('/s', 'runs', '2026-11-27T06-01-02Z-my_scenario_v2'))
  })

  it('--resume finds the last run\'s --state file, and refuses in one line when there is none to resume', async () => {
    await assert.rejects(lastRunState(stateDir), (error: Error) => error instanceof InvalidInputError && /^--resume: no run recorded in /.test(error.message))
    const scenario = resolveDefaultScenario()
    const runDir = runFolder(stateDir, scenario.name)
    await recordRun(stateDir, {runDir, scenario, stateFile: undefined, startedAt: new Date().toISOString()})
    await assert.rejects(lastRunState(stateDir), /kept no chain dump: start runs with --state FILE/)
    await recordRun(stateDir, {runDir, scenario, stateFile: '/data/run.state', startedAt: new Date().toISOString()})
    assert.equal(await lastRunState(stateDir), '/data/run.state')
    const saved = JSON.parse(await readFile(path.join(runDir, 'run.json'), 'utf8')) as {scenario: {name: string}}
    assert.equal(saved.scenario.name, 'default', 'the run folder keeps the exact scenario it ran')
  })
})
