import assert from 'node:assert/strict'

import {InvalidInputError} from '../../errors/base.js'
import {loadScenario} from '../scenario.js'
import {applySettings} from './applySettings.js'
import {parseGrid} from './parseGrid.js'
import {planCells, repeatSeed} from './planCells.js'

describe('sweep grid: --set parsed and checked against the scenario schema, cells planned', () => {
  it('reads numbers, booleans and ETH amounts as the schema wants them, and applies them to a scenario', async () => {
    const smoke = await loadScenario('smoke')
    const axes = parseGrid(['protocol.taxBps=100, 500', 'chain.solverStake=0.5,2', 'untilSettled=true', 'actors.solvers.1.claimDelayMs=0,1000'], smoke)
    assert.deepEqual(axes, [
      {path: 'protocol.taxBps', values: [100, 500]},
      {path: 'chain.solverStake', values: ['0.5', '2']},
      {path: 'untilSettled', values: [true]},
      {path: 'actors.solvers.1.claimDelayMs', values: [0, 1000]},
    ])
    const applied = applySettings(smoke, {'protocol.taxBps': 500, 'chain.solverStake': '2', 'actors.solvers.1.claimDelayMs': 1000})
    assert.equal(applied.protocol.taxBps, 500)
    assert.equal(applied.chain.solverStake, '2')
    assert.equal(applied.actors.solvers[1]!.claimDelayMs, 1000)
    assert.equal(applied.protocol.forcedErrorBps, smoke.protocol.forcedErrorBps, 'what is not set stays as the scenario says')
    assert.deepEqual(applied.jobs, smoke.jobs)
    // A section the scenario leaves out is made, with its defaults.
    assert.equal(applySettings(smoke, {'chaos.kills': 2}).chaos?.maxGapSeconds, 20)
  })

  it('refuses a bad path or value in one line naming it, as input errors (exit 2)', async () => {
    const smoke = await loadScenario('smoke')
    const refused = (sets: string[], message: RegExp) =>
      assert.throws(
        () => parseGrid(sets, smoke),
        (error: unknown) => error instanceof InvalidInputError && error.exitCode === 2 && message.test(error.shortMessage) && !error.shortMessage.includes('\n'),
      )
    refused(['protocol.taxBp=1,2'], /^--set protocol\.taxBp=1: protocol: .*taxBp/)
    refused(['protocol.taxBps=1,lots'], /^--set protocol\.taxBps=lots: protocol\.taxBps: /)
    refused(['protocol.taxBps=1,20000'], /^--set protocol\.taxBps=20000: protocol\.taxBps: /)
    refused(['actors.solvers.5.claimDelayMs=1'], /actors\.solvers is a list of 2: expected an index from 0 to 1, got 5/)
    refused(['name.first=1'], /name is a value, not a section/)
    refused(['protocol.taxBps'], /expected path=value1,value2/)
    refused(['protocol.taxBps=1,,2'], /expected path=value1,value2/)
    refused(['protocol.taxBps=1', 'protocol.taxBps=2'], /set twice/)
    refused(['seed=1,2'], /derives each run's seed from --seed/)
    refused([], /at least one parameter/)
  })

  it('plans the product of the axes times the repeats; repeat r of every combination shares its seed', async () => {
    const smoke = await loadScenario('smoke')
    const cells = planCells(smoke, [{path: 'protocol.taxBps', values: [100, 500]}, {path: 'chain.challengeWindow', values: [2, 3, 4]}], 2, 9)
    assert.equal(cells.length, 12)
    assert.deepEqual(cells.slice(0, 3).map(({id, settings, repeat}) => ({id, settings, repeat})), [
      {id: 'c1-r1', settings: {'protocol.taxBps': 100, 'chain.challengeWindow': 2}, repeat: 1},
      {id: 'c1-r2', settings: {'protocol.taxBps': 100, 'chain.challengeWindow': 2}, repeat: 2},
      {id: 'c2-r1', settings: {'protocol.taxBps': 100, 'chain.challengeWindow': 3}, repeat: 1},
    ])
    assert.equal(new Set(cells.map((cell) => cell.id)).size, 12)
    for (const cell of cells) assert.equal(cell.seed, repeatSeed(9, cell.repeat))
    assert.notEqual(repeatSeed(9, 1), repeatSeed(9, 2))
    assert.notEqual(repeatSeed(9, 1), repeatSeed(10, 1))
    assert.ok(Number.isSafeInteger(repeatSeed(9, 1)))
    // A combination the schema refuses as a whole is caught while planning, before any devnet starts.
    assert.throws(() => planCells(smoke, [{path: 'chaos.kills', values: [1]}, {path: 'chaos.minGapSeconds', values: [30]}], 1, 1), /maxGapSeconds/)
  })
})
