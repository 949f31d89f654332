import assert from 'node:assert/strict'

import type {FinishedJob} from './devnetState.js'
import {planJobs} from './resumeJobs.js'

const alice = '0x00000000000000000000000000000000000000a1'
const bob = '0x00000000000000000000000000000000000000b0'

function finished(job: number, taskIds: string[]): FinishedJob {
  return {job, submitter: `submitter-${job}`, jobPath: `/jobs/${job}.yaml`, taskIds, exit: {exitCode: 0, signal: undefined, stderrTail: ''}, result: {taskId: taskIds.at(-1)}}
}

describe('planJobs (which scenario job each task on chain belongs to, on a resume)', () => {
  it('a fresh chain: every job is submitted', () => {
    const plans = planJobs([{address: alice, jobs: [0, 1]}], [], new Map())
    assert.deepEqual([...plans], [
      [0, {kind: 'submit'}],
      [1, {kind: 'submit'}],
    ])
  })

  it('finished jobs keep their results; the tasks no finished job claims are the first unfinished job\'s; later jobs are posted', () => {
    const plans = planJobs(
      [{address: alice, jobs: [0, 2, 3]}],
      [finished(0, ['1'])],
      new Map([[alice, [1n, 4n, 3n]]]),
    )
    assert.equal(plans.get(0)?.kind, 'finished')
    assert.deepEqual(plans.get(2), {kind: 'follow', taskIds: [3n, 4n]})
    assert.deepEqual(plans.get(3), {kind: 'submit'})
  })

  it('each submitter account is planned on its own tasks (addresses compared case-blind)', () => {
    const plans = planJobs(
      [
        {address: alice, jobs: [0]},
        {address: bob.toUpperCase().replace('0X', '0x') as `0x${string}`, jobs: [1]},
      ],
      [],
      new Map([[bob, [2n]]]),
    )
    assert.deepEqual(plans.get(0), {kind: 'submit'})
    assert.deepEqual(plans.get(1), {kind: 'follow', taskIds: [2n]})
  })

  it('a job whose submitter posted nothing before the stop is posted, and the ones after it wait their turn', () => {
    const plans = planJobs([{address: alice, jobs: [0, 1]}], [finished(0, ['1', '2'])], new Map([[alice, [1n, 2n]]]))
    assert.deepEqual(plans.get(1), {kind: 'submit'})
  })
})
