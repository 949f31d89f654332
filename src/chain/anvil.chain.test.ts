import assert from 'node:assert/strict'
import {chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type Anvil, createAnvil} from './anvil.js'
import {AnvilNotStartedError, AnvilStartError} from './errors.js'

/** True while `pid` is a live (not zombie) process. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return process.platform !== 'linux'
  }
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({jsonrpc: '2.0', id: 1, method, params}),
  })
  return ((await response.json()) as {result: unknown}).result
}

async function eventually(check: () => boolean | Promise<boolean>, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('createAnvil', () => {
  const started: Anvil[] = []
  const make = (options: Parameters<typeof createAnvil>[0] = {}) => {
    const anvil = createAnvil(options)
    started.push(anvil)
    return anvil
  }
  afterEach(async () => {
    await Promise.all(started.splice(0).map((anvil) => anvil.stop()))
  })

  it('starts on a free port, answers JSON-RPC, and stop() ends the process', async () => {
    const anvil = make()
    assert.equal(anvil.status, 'idle')
    assert.throws(() => anvil.rpcUrl, AnvilNotStartedError)
    await anvil.start()
    assert.equal(anvil.status, 'listening')
    assert.ok(anvil.port > 0)
    assert.equal(anvil.rpcUrl, `http://127.0.0.1:${anvil.port}`)
    assert.equal(await rpc(anvil.rpcUrl, 'eth_chainId'), '0x7a69')
    assert.equal(anvil.chainId, 31337)
    const pid = anvil.pid
    assert.ok(pid && isRunning(pid))
    assert.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /anvil/)
    // Old states go to a folder of this run's own, not to ~/.foundry/anvil/tmp where nothing ever removes them.
    const cachePath = anvil.cachePath!
    assert.ok(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(cachePath), 'anvil runs with --cache-path')
    await rpc(anvil.rpcUrl, 'anvil_mine', ['0x200'])
    assert.ok(existsSync(cachePath))

    await anvil.stop()
    assert.equal(anvil.status, 'idle')
    assert.equal(isRunning(pid), false)
    assert.equal(anvil.pid, undefined)
    assert.equal(existsSync(cachePath), false, 'the persisted states are removed with the run')
    assert.equal(anvil.cachePath, undefined)
    assert.throws(() => anvil.rpcUrl, AnvilNotStartedError)
    await anvil.stop() // idempotent
  })

  it('passes chainId, accounts and balance (ether) to anvil', async () => {
    const anvil = make({chainId: 1337, accounts: 3, balance: 42})
    await anvil.start()
    assert.equal(anvil.chainId, 1337)
    const accounts = (await rpc(anvil.rpcUrl, 'eth_accounts')) as string[]
    assert.equal(accounts.length, 3)
    assert.equal(BigInt((await rpc(anvil.rpcUrl, 'eth_getBalance', [accounts[0], 'latest'])) as string), 42n * 10n ** 18n)
  })

  it('mines on an interval with blockTime', async () => {
    const anvil = make({blockTime: 1})
    await anvil.start()
    await eventually(async () => BigInt((await rpc(anvil.rpcUrl, 'eth_blockNumber')) as string) >= 1n, 4_000)
  })

  it('runs several at once on different ports and restarts after stop with a fresh chain', async () => {
    const a = make()
    const b = make()
    await Promise.all([a.start(), b.start()])
    assert.notEqual(a.port, b.port)
    await rpc(a.rpcUrl, 'evm_mine')
    assert.equal(await rpc(a.rpcUrl, 'eth_blockNumber'), '0x1')
    assert.equal(await rpc(b.rpcUrl, 'eth_blockNumber'), '0x0')
    const firstPid = a.pid
    await a.stop()
    await a.start()
    assert.notEqual(a.pid, firstPid)
    assert.equal(await rpc(a.rpcUrl, 'eth_blockNumber'), '0x0')
  })

  it('state: stop() dumps the chain and the next start() loads it, blocks, receipts and past balances included', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gensyn-anvil-state-'))
    try {
      const file = path.join(dir, 'chain.json')
      const anvil = make({state: file})
      await anvil.start()
      const [from, to] = (await rpc(anvil.rpcUrl, 'eth_accounts')) as string[]
      const hash = await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{from, to, value: '0x1234'}])
      await rpc(anvil.rpcUrl, 'evm_mine')
      await anvil.stop()
      assert.ok(JSON.parse(readFileSync(file, 'utf8')), 'no state dumped on stop')

      await anvil.start()
      assert.equal(await rpc(anvil.rpcUrl, 'eth_blockNumber'), '0x2')
      const receipt = (await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash])) as {blockNumber: string; status: string}
      assert.deepEqual([receipt.blockNumber, receipt.status], ['0x1', '0x1'])
      // Historical states are kept (--preserve-historical-states): a read at a block before the dump answers.
      const before = BigInt((await rpc(anvil.rpcUrl, 'eth_getBalance', [to, '0x0'])) as string)
      const after = BigInt((await rpc(anvil.rpcUrl, 'eth_getBalance', [to, '0x1'])) as string)
      assert.equal(after - before, 0x1234n)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('state: a dump cut off by a kill never replaces the last complete one, and the next start() loads that', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gensyn-anvil-state-'))
    try {
      const file = path.join(dir, 'chain.json')
      const anvil = make({state: file, stateInterval: 1})
      await anvil.start()
      const [from, to] = (await rpc(anvil.rpcUrl, 'eth_accounts')) as string[]
      const hash = await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{from, to, value: '0x1234'}])
      await rpc(anvil.rpcUrl, 'evm_mine')
      // anvil dumps beside the state file; the state file gets each complete dump.
      const dumped = () => existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as {block?: {number?: string}}).block?.number === '0x2'
      await eventually(dumped, 10_000)
      process.kill(anvil.pid!, 'SIGKILL')
      await eventually(() => anvil.status === 'idle')
      // What a SIGKILL in the middle of anvil's write leaves (a kill cannot be timed to land there): the dump cut
      // off, newer than the state file.
      const complete = readFileSync(file, 'utf8')
      writeFileSync(`${file}.dumping`, complete.slice(0, Math.floor(complete.length / 2)))
      await anvil.stop()
      await anvil.start()
      assert.equal(readFileSync(file, 'utf8'), complete, 'the cut-off dump replaced the complete one')
      assert.equal(existsSync(`${file}.dumping`), false, 'the cut-off dump was kept')
      assert.equal(await rpc(anvil.rpcUrl, 'eth_blockNumber'), '0x2')
      const receipt = (await rpc(anvil.rpcUrl, 'eth_getTransactionReceipt', [hash])) as {status: string}
      assert.equal(receipt.status, '0x1')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('start() while running is an error', async () => {
    const anvil = make()
    await anvil.start()
    await assert.rejects(anvil.start(), /start\(\) called while it is listening/)
  })

  it('a port in use fails with AnvilStartError naming the binary and the reason, and the instance can start again', async () => {
    const first = make()
    await first.start()
    const second = make({port: first.port})
    await assert.rejects(second.start(), (error: unknown) => {
      assert.ok(error instanceof AnvilStartError)
      assert.ok(error.shortMessage.includes(error.binary))
      assert.match(error.shortMessage, /Address already in use/)
      assert.equal(error.shortMessage.includes('\n'), false, 'one-line short message')
      return true
    })
    assert.equal(second.status, 'idle')
    const port = first.port
    await first.stop()
    await second.start()
    assert.equal(second.port, port)
  })

  it('a missing binary fails with AnvilStartError naming it', async () => {
    await assert.rejects(make({binary: '/nonexistent/anvil'}).start(), (error: unknown) => {
      assert.ok(error instanceof AnvilStartError)
      assert.equal(error.binary, '/nonexistent/anvil')
      assert.match(error.shortMessage, /anvil failed to start \(\/nonexistent\/anvil\): no executable file/)
      return true
    })
  })

  describe('with misbehaving binaries', () => {
    let dir: string
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'gensyn-fake-anvil-'))
    })
    after(() => rmSync(dir, {recursive: true, force: true}))
    const script = (name: string, body: string) => {
      const file = path.join(dir, name)
      writeFileSync(file, `#!/bin/sh\n${body}\n`)
      chmodSync(file, 0o755)
      return file
    }

    it('a binary that exits at once: AnvilStartError with its last words', async () => {
      const binary = script('crashes', 'echo "error: unsupported flag" >&2; exit 3')
      await assert.rejects(make({binary}).start(), (error: unknown) => {
        assert.ok(error instanceof AnvilStartError)
        assert.match(error.shortMessage, /exited.*unsupported flag/)
        return true
      })
    })

    it('a binary that never listens: AnvilStartError after startTimeout, and the process is killed', async () => {
      const pidFile = path.join(dir, 'hangs.pid')
      const binary = script('hangs', `echo $$ > ${pidFile}; exec sleep 30`)
      await assert.rejects(make({binary, startTimeout: 300}).start(), /failed to start in time/)
      const pid = Number(readFileSync(pidFile, 'utf8'))
      assert.ok(pid > 0)
      await eventually(() => !isRunning(pid))
    })
  })

  it('notices when anvil dies underneath it', async () => {
    const anvil = make()
    await anvil.start()
    process.kill(anvil.pid!, 'SIGKILL')
    await eventually(() => anvil.status === 'idle')
    await anvil.stop()
    await anvil.start()
    assert.equal(await rpc(anvil.rpcUrl, 'eth_chainId'), '0x7a69')
  })

  it('hooks exit and signals only while an anvil runs', async () => {
    const baseline = {exit: process.listenerCount('exit'), sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM')}
    const a = make()
    const b = make({handleSignals: false})
    await b.start()
    assert.equal(process.listenerCount('exit'), baseline.exit + 1)
    assert.equal(process.listenerCount('SIGINT'), baseline.sigint, 'handleSignals: false adds no signal hook')
    await a.start()
    assert.equal(process.listenerCount('exit'), baseline.exit + 1, 'one exit hook for all anvils')
    assert.equal(process.listenerCount('SIGINT'), baseline.sigint + 1)
    assert.equal(process.listenerCount('SIGTERM'), baseline.sigterm + 1)
    await a.stop()
    assert.equal(process.listenerCount('SIGINT'), baseline.sigint)
    assert.equal(process.listenerCount('exit'), baseline.exit + 1)
    await b.stop()
    assert.deepEqual(
      {exit: process.listenerCount('exit'), sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM')},
      baseline,
    )
  })
})
