import assert from 'node:assert/strict'
import path from 'node:path'

import {loadJobSpec} from '../ml/spec/index.js'
import {packageRoot} from '../util/packageRoot.js'
import {unmappedDataNotice} from './unmappedDataNotice.js'

const job = (name: string) => loadJobSpec(path.join(packageRoot, 'fixtures/jobs', name))

describe('unmappedDataNotice', () => {
  it('names the mapping and the consequence for a private job file', async () => {
    const notice = unmappedDataNotice(await job('private-cnn.yaml'), 'the thresholds are for raw data')
    assert.equal(
      notice,
      'privacy: the local mapping is not applied off chain (its key needs your secret and the block hash at submission), so this runs on raw MNIST: the thresholds are for raw data',
    )
  })

  it('says nothing for a job that is not private, or a task spec that names its mapped data', async () => {
    assert.equal(unmappedDataNotice(await job('smoke-mlp.yaml'), 'x'), undefined)
    const submitted = {privacy: {mapping: 'orthogonal' as const, data: `0x${'ab'.repeat(32)}`}}
    assert.equal(unmappedDataNotice(submitted, 'x'), undefined)
  })
})
