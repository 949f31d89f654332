import assert from 'node:assert/strict'
import {mkdir, mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {Hex} from 'viem'

import {readSolverState, writeSolverState} from './solverState.js'

describe('solver state file', () => {
  const address: Hex = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`
  let dir: string

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gensyn-solver-state-'))
  })
  afterEach(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('keeps every task it is told to keep, with its secret and proofs, and drops the others', async () => {
    await writeSolverState(dir, address, {taskId: 1n, checkpoints: [{step: 0, hash: hash(1)}], secret: hash(9)})
    await writeSolverState(dir, address, {taskId: 2n, checkpoints: [], secret: hash(8), forced: true, honest: {proofRoot: hash(2), manifestHash: hash(3)}})
    assert.equal((await readSolverState(dir, address, 1n))?.secret, hash(9))
    assert.deepEqual((await readSolverState(dir, address, 2n))?.honest, {proofRoot: hash(2), manifestHash: hash(3)})
    assert.equal(await readSolverState(dir, address, 3n), undefined)
    // Only task 2 is still live: task 1's entry goes when task 3 is saved.
    await writeSolverState(dir, address, {taskId: 3n, checkpoints: []}, [2n])
    assert.equal(await readSolverState(dir, address, 1n), undefined)
    assert.equal((await readSolverState(dir, address, 2n))?.forced, true)
    const file = path.join(dir, 'solvers', `${address.toLowerCase()}.json`)
    assert.equal((await stat(file)).mode & 0o077, 0, 'the file holds secrets: owner-only')
    assert.equal(JSON.parse(await readFile(file, 'utf8')).version, 2)
  })

  it('reads the first format (one task, no secret) as that task', async () => {
    await mkdir(path.join(dir, 'solvers'), {recursive: true})
    await writeFile(path.join(dir, 'solvers', `${address.toLowerCase()}.json`), JSON.stringify({taskId: '7', checkpoints: [{step: 0, hash: hash(1)}]}))
    assert.deepEqual(await readSolverState(dir, address, 7n), {taskId: 7n, checkpoints: [{step: 0, hash: hash(1)}]})
  })
})
