import assert from 'node:assert/strict'
import path from 'node:path'

import {type Hex, maxUint256} from 'viem'

import {roleRegistryAbi, thresholdRegistryAbi} from '../chain/generated/index.js'

import {type JobSpec, loadJobSpec} from '../ml/spec/index.js'
import {profileJob, type ProfileResult} from '../pol/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'
import {connect, requireSigner, type SignedConnection} from './connect.js'
import {pinnedThresholds} from './pinnedThresholds.js'
import {getThreshold, modelClassOf, postProfile, runtimeClassOf} from './postProfile.js'
import {sendContractTransaction} from './sendContractTransaction.js'
import {Role} from './types.js'

const pin = (spec: JobSpec, profiles: readonly Hex[]): JobSpec => ({...spec, verification: {...spec.verification, profiles: [...profiles]}})

describe('pinnedThresholds (real anvil, real profiles)', function () {
  this.timeout(120_000)
  let devnet: LocalDevnet
  let verifier: SignedConnection
  /** An account no one vouches for, playing the attacker of issue 18, finding 3. */
  let attacker: SignedConnection
  let spec: JobSpec
  /** The honest verifier's profile of smoke-mlp across cpu and wasm, as `gensyn profile --post` publishes it. */
  let profile: ProfileResult
  let profileHash: Hex

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 0, verifiers: 2})
    verifier = requireSigner(await connect({stateDir: devnet.stateDir, account: 2}))
    attacker = requireSigner(await connect({stateDir: devnet.stateDir, account: 3}))
    spec = await loadJobSpec(path.join(packageRoot, 'fixtures/jobs/smoke-mlp.yaml'))
    profile = await profileJob({spec, runtimes: ['cpu', 'wasm'], segments: 1})
    ;({profileHash} = await postProfile(verifier, {spec, profile}))
  })
  after(() => devnet?.stop())

  it('attack: an enormous threshold a free verifier registration posts after the honest one changes neither the honest record nor what a pinned job resolves', async () => {
    const pair = {modelClass: modelClassOf(spec), runtimeClass: runtimeClassOf(profile.runtimes)}
    const honest = await getThreshold(attacker, {...pair, poster: verifier.account.address})
    assert.equal(honest.profileHash, profileHash)
    // The attacker takes the verifier role, which costs nothing, publishes the honest profile with every limit
    // blown up, and posts it for the same model and runtime class, after the honest poster.
    await sendContractTransaction(attacker, {address: attacker.contracts.registry, abi: roleRegistryAbi, functionName: 'register', args: [Role.verifier], value: 0n})
    const forged = await attacker.store.putJson({...profile, thresholds: {l1: 1e30, l2: 1e30, linf: 1e30}})
    await sendContractTransaction(attacker, {
      address: attacker.contracts.thresholds!,
      abi: thresholdRegistryAbi,
      functionName: 'postThreshold',
      args: [pair.modelClass, pair.runtimeClass, maxUint256, forged],
    })
    assert.deepEqual(await getThreshold(attacker, {...pair, poster: verifier.account.address}), honest)
    assert.equal((await getThreshold(attacker, {...pair, poster: attacker.account.address})).profileHash, forged)
    // What an honest verifier judges a job pinned to the honest profile by: the honest thresholds.
    assert.deepEqual(await pinnedThresholds(verifier, {spec: pin(spec, [profileHash]), runtimes: profile.runtimes}), {pinned: {profileHash, thresholds: profile.thresholds}, unreadable: []})
    // And a job that pinned nothing is judged by neither posting.
    assert.deepEqual(await pinnedThresholds(verifier, {spec, runtimes: profile.runtimes}), {pinned: undefined, unreadable: []})
  })

  it('a spec that pins nothing resolves no thresholds, though a profile for its model and runtimes is posted', async () => {
    assert.deepEqual(await pinnedThresholds(verifier, {spec, runtimes: profile.runtimes}), {pinned: undefined, unreadable: []})
  })

  it("resolves the pinned profile's thresholds for its runtime class, in either order of the runtimes", async () => {
    const expected = {pinned: {profileHash, thresholds: profile.thresholds}, unreadable: []}
    assert.deepEqual(await pinnedThresholds(verifier, {spec: pin(spec, [profileHash]), runtimes: profile.runtimes}), expected)
    assert.deepEqual(await pinnedThresholds(verifier, {spec: pin(spec, [profileHash]), runtimes: [...profile.runtimes].reverse()}), expected)
  })

  it('a pin for another runtime class does not apply', async () => {
    const [cpu] = profile.runtimes
    assert.ok(cpu)
    assert.deepEqual(await pinnedThresholds(verifier, {spec: pin(spec, [profileHash]), runtimes: [cpu]}), {pinned: undefined, unreadable: []})
  })

  it('takes the first pin, in the spec order, for the runtime class', async () => {
    const wider = await verifier.store.putJson({...profile, thresholds: {...profile.thresholds, linf: profile.thresholds.linf! * 2}})
    const first = await pinnedThresholds(verifier, {spec: pin(spec, [wider, profileHash]), runtimes: profile.runtimes})
    assert.equal(first.pinned?.profileHash, wider)
    assert.equal(first.pinned?.thresholds.linf, profile.thresholds.linf! * 2)
    assert.equal((await pinnedThresholds(verifier, {spec: pin(spec, [profileHash, wider]), runtimes: profile.runtimes})).pinned?.profileHash, profileHash)
  })

  it('passes over a pin the store cannot give, or that is not a profile, and says why', async () => {
    const missing: Hex = `0x${'00'.repeat(31)}01`
    const notProfile = await verifier.store.putJson({hello: 'world'})
    const badThresholds = await verifier.store.putJson({...profile, thresholds: {linf: -1}})
    const resolved = await pinnedThresholds(verifier, {spec: pin(spec, [missing, notProfile, badThresholds, profileHash]), runtimes: profile.runtimes})
    assert.equal(resolved.pinned?.profileHash, profileHash)
    assert.deepEqual(resolved.unreadable.map((entry) => entry.profileHash), [missing, notProfile, badThresholds])
    assert.match(resolved.unreadable[1]!.reason, /^not a profile: expected runtimes/)
    assert.match(resolved.unreadable[2]!.reason, /^thresholds\.linf: /)
    const none = await pinnedThresholds(verifier, {spec: pin(spec, [missing]), runtimes: profile.runtimes})
    assert.equal(none.pinned, undefined)
    assert.equal(none.unreadable.length, 1)
  })
})
