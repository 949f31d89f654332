import assert from 'node:assert/strict'

import {resolveDefaultScenario} from '../../scenario.js'
import {jobsSection} from './jobs.js'

const exit = {exitCode: 0, signal: undefined, stderrTail: ''}
const base = resolveDefaultScenario()
const scenario = {...base, jobs: [{...base.jobs[0]!, file: 'seq.yaml'}, {...base.jobs[0]!, file: 'par.yaml', compareWith: 0}, {...base.jobs[0]!, file: 'late.yaml', compareWith: 1}]}
const task = (taskId: string, index: number, tasks: number, testAccuracy?: number) => ({taskId, index, tasks, ...(testAccuracy === undefined ? {} : {testAccuracy})})

describe('report: jobs section', () => {
  it('lists the jobs in scenario order with the speed-up over the job each is compared with', () => {
    const jobs = jobsSection({
      scenario,
      submissions: [
        // a second submitter's job may end first: the section puts it back in the scenario's order
        {job: '/x/par.yaml', index: 1, submitter: 'submitter-2', exit, result: {verdict: 'accepted', testAccuracy: 0.86, wallSeconds: 16, finalCheckpoint: '0xaa', tasks: [task('4', 0, 2), task('5', 0, 2), task('6', 1, 2, 0.86), task('7', 1, 2, 0.86)], rounds: [{round: 0, taskIds: ['4', '5'], mean: '0xbb'}, {round: 1, taskIds: ['6', '7'], start: '0xbb', mean: '0xaa'}]}},
        {job: '/x/seq.yaml', index: 0, submitter: 'submitter-1', exit, result: {verdict: 'accepted', testAccuracy: 0.89, wallSeconds: 20, tasks: [task('1', 0, 3), task('2', 1, 3), task('3', 2, 3, 0.89)]}},
        {job: '/x/late.yaml', index: 2, submitter: 'submitter-1', exit, result: undefined},
      ],
    })
    assert.deepEqual(
      jobs.map((job) => [job.index, job.file, job.tasks, job.wallSeconds, job.speedup]),
      [
        [0, 'seq.yaml', 3, 20, undefined],
        [1, 'par.yaml', 4, 16, {over: 0, ratio: 20 / 16}],
        [2, 'late.yaml', 0, null, {over: 1, ratio: null}],
      ],
    )
    assert.equal(jobs[1]!.shards, 2)
    assert.equal(jobs[1]!.rounds?.length, 2)
    assert.equal(jobs[1]!.finalCheckpoint, '0xaa')
    assert.equal(jobs[0]!.rounds, undefined)
  })
})
