import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {AnvilNotFoundError} from './errors.js'
import {anvilPackageName, findAnvilBinary} from './findAnvilBinary.js'

describe('findAnvilBinary', () => {
  let dir: string
  let realAnvil: string
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gensyn-anvil-bin-'))
    realAnvil = findAnvilBinary({env: {}}).path
  })
  after(() => rmSync(dir, {recursive: true, force: true}))

  it('finds the binary of the @foundry-rs/anvil platform package by default, and it is anvil 1.7.1', () => {
    const found = findAnvilBinary({env: {}})
    assert.equal(found.source, 'package')
    const expectedPackage = anvilPackageName()
    assert.ok(expectedPackage, 'this platform has an npm anvil package')
    assert.ok(found.path.includes(path.join('node_modules', ...expectedPackage.split('/'), 'bin')), found.path)
    assert.match(execFileSync(found.path, ['--version'], {encoding: 'utf8'}), /anvil Version: 1\.7\.1/)
  })

  it('GENSYN_ANVIL_BIN overrides the npm binary', () => {
    const link = path.join(dir, 'my-anvil')
    symlinkSync(realAnvil, link)
    assert.deepEqual(findAnvilBinary({env: {GENSYN_ANVIL_BIN: link}}), {path: link, source: 'env'})
  })

  it('GENSYN_ANVIL_BIN pointing at nothing (or a folder, or a non-executable file) is an error naming the path', () => {
    const plain = path.join(dir, 'not-executable')
    writeFileSync(plain, 'x')
    chmodSync(plain, 0o644)
    for (const bad of [path.join(dir, 'missing'), dir, plain]) {
      assert.throws(
        () => findAnvilBinary({env: {GENSYN_ANVIL_BIN: bad}}),
        (error: unknown) => error instanceof AnvilNotFoundError && error.shortMessage.includes('GENSYN_ANVIL_BIN') && error.shortMessage.includes(bad),
      )
    }
  })

  it('an anvil on PATH does not override the npm package', () => {
    const binDir = path.join(dir, 'path-wins-not')
    mkdirSync(binDir)
    symlinkSync(realAnvil, path.join(binDir, 'anvil'))
    assert.equal(findAnvilBinary({env: {PATH: binDir}}).source, 'package')
  })

  it('falls back to PATH where no platform package exists', () => {
    const binDir = path.join(dir, 'fallback')
    mkdirSync(binDir)
    symlinkSync(realAnvil, path.join(binDir, 'anvil'))
    assert.deepEqual(findAnvilBinary({env: {PATH: ['/nonexistent', binDir].join(path.delimiter)}, platform: 'freebsd', arch: 'x64'}), {
      path: path.join(binDir, 'anvil'),
      source: 'path',
    })
  })

  it('throws AnvilNotFoundError listing where it looked when nothing is found', () => {
    assert.throws(
      () => findAnvilBinary({env: {PATH: ''}, platform: 'freebsd', arch: 'x64'}),
      (error: unknown) =>
        error instanceof AnvilNotFoundError && /no anvil binary found/.test(error.shortMessage) && /PATH/.test(error.shortMessage),
    )
  })

  it('maps platforms to the package names @foundry-rs/anvil publishes', () => {
    assert.equal(anvilPackageName('linux', 'x64'), '@foundry-rs/anvil-linux-amd64')
    assert.equal(anvilPackageName('linux', 'arm64'), '@foundry-rs/anvil-linux-arm64')
    assert.equal(anvilPackageName('darwin', 'arm64'), '@foundry-rs/anvil-darwin-arm64')
    assert.equal(anvilPackageName('darwin', 'x64'), '@foundry-rs/anvil-darwin-amd64')
    assert.equal(anvilPackageName('win32', 'x64'), '@foundry-rs/anvil-win32-amd64')
    assert.equal(anvilPackageName('win32', 'arm64'), undefined)
    assert.equal(anvilPackageName('linux', 'ia32'), undefined)
  })
})
