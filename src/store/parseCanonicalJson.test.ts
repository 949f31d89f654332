import assert from 'node:assert/strict'

import {CanonicalJsonError} from './canonicalJson.js'
import {parseCanonicalJson} from './parseCanonicalJson.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const refused = (input: string | Uint8Array, message: RegExp) =>
  assert.throws(
    () => parseCanonicalJson(typeof input === 'string' ? bytes(input) : input, 'x.json'),
    (error: unknown) => error instanceof CanonicalJsonError && message.test(error.shortMessage) && !error.shortMessage.includes('\n'),
  )

describe('parseCanonicalJson', () => {
  it('returns the value of canonical bytes, brackets inside strings not counted as nesting', () => {
    assert.deepEqual(parseCanonicalJson(bytes('{"a":[1,{"b":"[[{{"}],"c":null}'), 'x.json', 3), {a: [1, {b: '[[{{'}], c: null})
    assert.equal(parseCanonicalJson(bytes('"\\\\\\"["'), 'x.json', 0), '\\"[')
  })

  it('refuses duplicate keys, which JSON.parse would resolve to the last one', () => {
    assert.deepEqual(JSON.parse('{"a":1,"a":2}'), {a: 2})
    refused('{"a":1,"a":2}', /^x\.json: expected canonical JSON \(sorted keys, each once, no whitespace\), got a difference at byte 5/)
  })

  it('refuses other spellings of the same value: order, spacing, numbers, escapes', () => {
    for (const text of ['{"b":1,"a":2}', '{"a": 1}', '{"a":1}\n', '[1.0]', '[1E2]', '[-0]', '["\\u0061"]', '\uFEFF[]']) refused(text, /expected canonical JSON|malformed JSON/)
  })

  it('refuses NaN, Infinity and numbers that overflow a double, in one line', () => {
    refused('[NaN]', /^x\.json: malformed JSON: /)
    refused('{"a":1e999}', /^x\.json: \$\.a: expected a finite number, got Infinity$/)
  })

  it('refuses nesting past the limit before parsing, and bytes that are not UTF-8', () => {
    refused(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`, /^x\.json: expected JSON nested at most 64 deep, got deeper$/)
    refused(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), /^x\.json: expected UTF-8 text/)
  })
})
