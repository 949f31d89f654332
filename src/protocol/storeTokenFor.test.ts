import assert from 'node:assert/strict'

import type {NetworkFile} from '../chain/networkFile.js'
import {storeTokenFor} from './storeTokenFor.js'

const token = 'b7c1e0f2a9d84c3e5f6a7b8c9d0e1f2a'
/** Only the fields storeTokenFor reads matter here. */
const network = {store: 'http://10.0.0.2:8600'} as NetworkFile

describe('storeTokenFor', () => {
  it("sends the network file's token only to the network file's store; --store-token wins and is checked", () => {
    const file = {...network, storeToken: token}
    assert.equal(storeTokenFor({}, file), token)
    assert.equal(storeTokenFor({store: 'http://elsewhere:8600'}, file), undefined, 'another server never gets it')
    assert.equal(storeTokenFor({storeDir: '/mnt/blobs'}, file), undefined)
    assert.equal(storeTokenFor({storeToken: 'my-own-token-for-my-store', store: 'http://elsewhere:8600'}, file), 'my-own-token-for-my-store')
    assert.equal(storeTokenFor({}, undefined), undefined)
    assert.throws(() => storeTokenFor({storeToken: 'abc'}, file), /^InvalidInputError: --store-token: expected a token of 16 to 512 printable ASCII characters without spaces, got 3 characters$/m)
  })
})
