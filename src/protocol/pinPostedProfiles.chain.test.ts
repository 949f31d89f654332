import assert from 'node:assert/strict'
import path from 'node:path'

import type {Hex} from 'viem'

import {InvalidInputError} from '../errors/base.js'
import {type JobSpec, loadJobSpec, specHash} from '../ml/spec/index.js'
import {profileJob, type ProfileResult} from '../pol/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {connect, requireSigner, type SignedConnection} from './connect.js'
import {pinnedThresholds} from './pinnedThresholds.js'
import {pinPostedProfiles} from './pinPostedProfiles.js'
import {postProfile, runtimeClassOf} from './postProfile.js'

describe('pinPostedProfiles (real anvil, real profiles)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let submitter: SignedConnection
  let trusted: SignedConnection
  let stranger: SignedConnection
  let spec: JobSpec
  let profile: ProfileResult
  /** What the trusted poster published: its first and its latest cpu + wasm profile, and a cpu-only one. */
  const posted = {first: '' as Hex, latest: '' as Hex, cpuOnly: '' as Hex, strangers: '' as Hex}

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 2})
    const at = async (account: number) => requireSigner(await connect({stateDir: devnet.stateDir, account}))
    ;[submitter, trusted, stranger] = await Promise.all([at(1), at(2), at(3)])
    spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    profile = await profileJob({spec, runtimes: ['cpu', 'wasm'], segments: 1})
    const widened = (factor: number): ProfileResult => ({...profile, thresholds: {...profile.thresholds, linf: profile.thresholds.linf! * factor}})
    posted.first = (await postProfile(trusted, {spec, profile})).profileHash
    posted.cpuOnly = (await postProfile(trusted, {spec, profile: {...profile, runtimes: profile.runtimes.slice(0, 1)}})).profileHash
    posted.latest = (await postProfile(trusted, {spec, profile: widened(2)})).profileHash
    // Someone else posts for the same model and runtimes after the trusted poster, as an attacker would.
    posted.strangers = (await postProfile(stranger, {spec, profile: widened(1e12)})).profileHash
  })
  after(() => devnet?.stop())

  it("pins the trusted poster's latest profile per runtime class and nobody else's; a verifier then judges by it", async () => {
    const {spec: pinned, pinned: entries} = await pinPostedProfiles(submitter, {spec, posters: [trusted.account.address]})
    assert.deepEqual(pinned.verification.profiles, [posted.latest, posted.cpuOnly])
    assert.deepEqual(
      entries.map(({poster, runtimeClass, profileHash}) => ({poster, runtimeClass, profileHash})),
      [
        {poster: trusted.account.address, runtimeClass: runtimeClassOf(profile.runtimes), profileHash: posted.latest},
        {poster: trusted.account.address, runtimeClass: runtimeClassOf(profile.runtimes.slice(0, 1)), profileHash: posted.cpuOnly},
      ],
    )
    assert.deepEqual({...pinned, verification: {...pinned.verification, profiles: undefined}}, {...spec, verification: {...spec.verification, profiles: undefined}}, 'only the pins change')
    assert.notEqual(specHash(pinned), specHash(spec))
    const judged = await pinnedThresholds(trusted, {spec: pinned, runtimes: profile.runtimes})
    assert.equal(judged.pinned?.profileHash, posted.latest)
    assert.equal(judged.pinned?.thresholds.linf, profile.thresholds.linf! * 2)
  })

  it('keeps the pins the job file has, first, once each, and takes posters in the order given', async () => {
    const own = {...spec, verification: {...spec.verification, profiles: [posted.cpuOnly]}}
    const {spec: pinned} = await pinPostedProfiles(submitter, {spec: own, posters: [stranger.account.address, trusted.account.address, stranger.account.address]})
    assert.deepEqual(pinned.verification.profiles, [posted.cpuOnly, posted.strangers, posted.latest])
  })

  it('refuses, naming --thresholds-from, a poster that posted nothing for the job\'s model', async () => {
    await assert.rejects(pinPostedProfiles(submitter, {spec, posters: [trusted.account.address, submitter.account.address]}), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError)
      assert.match(error.shortMessage, new RegExp(`^--thresholds-from: expected ${submitter.account.address} to have posted thresholds for this job's model class 0x[0-9a-f]{64}, found none$`))
      return true
    })
    const otherModel = {...spec, model: {...spec.model, layers: [...spec.model.layers].reverse()}}
    await assert.rejects(pinPostedProfiles(submitter, {spec: otherModel, posters: [trusted.account.address]}), /--thresholds-from: expected 0x[0-9a-fA-F]{40} to have posted/)
  })
})
