import assert from 'node:assert/strict'

import {crowdMembers, dealMembers, submitterQuotas} from './crowdMembers.js'
import {crowdSchema} from './crowdSchema.js'

const crowd = crowdSchema.parse({submitters: 3, solvers: 5, cheaters: 2, verifiers: 3, lazyVerifiers: 1, whistleblowers: 2, tasks: 10, processes: 2})

describe('crowd members', () => {
  it('names every member after what it plays, numbered within its kind, with accounts after the scenario’s own', () => {
    const {members, accounts, roster} = crowdMembers(crowd, 7, 4)
    assert.deepEqual(
      members.map((member) => member.name),
      ['crowd-submitter-1', 'crowd-submitter-2', 'crowd-submitter-3', 'crowd-cheater-1', 'crowd-cheater-2', 'crowd-solver-1', 'crowd-solver-2', 'crowd-solver-3', 'crowd-lazy-verifier-1', 'crowd-verifier-1', 'crowd-verifier-2', 'crowd-whistleblower-1', 'crowd-whistleblower-2'],
    )
    assert.deepEqual(
      accounts.map((account) => account.index),
      Array.from({length: 13}, (_, i) => 4 + i),
    )
    assert.equal(new Set(accounts.map((account) => account.address)).size, 13, 'one account each')
    // The report judges a sampling verifier's slash and a crowd cheater's pay as measurements, not failures.
    assert.deepEqual(
      roster.map((entry) => `${entry.name}:${entry.strategy}`).filter((entry) => !entry.includes('-solver-') && !entry.includes('whistleblower')),
      ['crowd-cheater-1:crowd-cheater', 'crowd-cheater-2:crowd-cheater', 'crowd-lazy-verifier-1:lazy', 'crowd-verifier-1:sampling', 'crowd-verifier-2:sampling'],
    )
  })

  it('derives the same keys from the same seed, and others from another', () => {
    assert.deepEqual(crowdMembers(crowd, 7, 0).members, crowdMembers(crowd, 7, 0).members)
    assert.notEqual(crowdMembers(crowd, 7, 0).members[0]!.privateKey, crowdMembers(crowd, 8, 0).members[0]!.privateKey)
  })

  it('deals members round robin, so every process hosts every role, and shares the tasks out evenly', () => {
    const {members} = crowdMembers(crowd, 7, 0)
    const shares = dealMembers(members, 2)
    assert.deepEqual(
      shares.map((share) => share.length),
      [7, 6],
    )
    for (const share of shares) assert.deepEqual(new Set(share.map((member) => member.role)), new Set(['submitter', 'solver', 'verifier', 'whistleblower']))
    assert.deepEqual(submitterQuotas(members, 10), {'crowd-submitter-1': 4, 'crowd-submitter-2': 3, 'crowd-submitter-3': 3})
  })

  it('refuses a crowd without an honest solver or verifier, in one line naming the field', () => {
    const first = (input: unknown) => {
      const parsed = crowdSchema.safeParse(input)
      return parsed.success ? undefined : `${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`
    }
    assert.equal(first({solvers: 2, cheaters: 3}), 'cheaters: expected cheaters <= solvers')
    assert.equal(first({solvers: 2, cheaters: 2}), 'solvers: expected at least one honest solver (solvers > cheaters)')
    assert.equal(first({verifiers: 1, lazyVerifiers: 1}), 'verifiers: expected at least one honest verifier (verifiers > lazyVerifiers)')
    assert.equal(first({processes: 0}), 'processes: Too small: expected number to be >=1')
  })
})
