import assert from 'node:assert/strict'
import {readFile} from 'node:fs/promises'
import {parseJobSpec} from '../ml/spec/parseJobSpec.js'
import type {BlobStore} from '../store/types.js'
import {cheat} from './cheat.js'
import {AdversaryInputError} from './errors.js'
import {describeStrategy, isStrategyName, parseStrategyName, strategyNames, type StrategyName} from './strategies.js'

describe('adversary strategies', () => {
  it('rejects an unknown strategy in one line that lists the valid ones, with exit code 2', async () => {
    const expected = 'strategy: expected one of honest, random-weights, skip-steps, wrong-data, copy, truncate, noise, forge, got "lazy"'
    assert.throws(() => parseStrategyName('lazy'), (e: AdversaryInputError) => e instanceof AdversaryInputError && e.exitCode === 2 && e.shortMessage === expected)
    assert.throws(() => describeStrategy('lazy' as StrategyName), AdversaryInputError)
    assert.equal(isStrategyName('forge'), true)
    assert.equal(isStrategyName('Forge'), false)
    // validation happens before anything touches the store or trains
    const untouchable = new Proxy({}, {get: () => assert.fail('the store was used')}) as BlobStore
    const spec = parseJobSpec(await readFile('fixtures/jobs/smoke-mlp.yaml', 'utf8'))
    await assert.rejects(cheat({strategy: 'lazy' as StrategyName, spec, store: untouchable}), (e: AdversaryInputError) => e.shortMessage === expected)
    for (const seed of [-1, 1.5, 2 ** 32])
      await assert.rejects(cheat({strategy: 'forge', spec, store: untouchable, seed}), new RegExp(`seed: expected an integer in \\[0, 4294967295\\], got ${seed}`))
    await assert.rejects(cheat({strategy: 'forge', spec, store: untouchable, backend: 'tpu' as 'cpu'}), /backend: expected one of wasm, cpu, webgpu, gpu, auto, got "tpu"/)
  })

  it('describes every strategy, and docs/adversaries.md documents each one', async () => {
    const doc = await readFile('docs/adversaries.md', 'utf8')
    for (const name of strategyNames) {
      const d = describeStrategy(name)
      for (const field of [d.summary, d.saves, d.caughtBy]) assert.ok(field.length > 20 && !field.includes('\n'), `${name}: ${field}`)
      assert.equal(d.failsCheck === null, name === 'honest')
      assert.match(d.saves, /compute fraction/, name)
      assert.ok(doc.includes(`## \`${name}\``), `docs/adversaries.md has a section for ${name}`)
    }
  })
})
