import assert from 'node:assert/strict'

import {parseEther} from 'viem'

import {waitForReceipt} from '../chain/waitForReceipt.js'
import {connect, type Connection, requireSigner} from '../protocol/connect.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {takeBalanceSnapshot} from './balances.js'
import {buildReport} from './buildReport.js'
import {resolveDefaultScenario} from './scenario.js'
import {type LocalDevnet, startLocalDevnet} from '../../test/helpers/localDevnet.js'

describe('buildReport: the money check (real anvil)', function () {
  this.timeout(60_000)
  let devnet: LocalDevnet
  let accounts: LocalDevnet['accounts']
  let stateDir: string
  let connection: Connection

  before(async () => {
    devnet = await startLocalDevnet({submitters: 1, solvers: 1, verifiers: 1}, 1)
    ;({accounts, stateDir} = devnet)
    connection = await connect({stateDir})
  })
  after(() => devnet?.stop())

  async function reportAfter(act: () => Promise<void>) {
    const before = await takeBalanceSnapshot(connection, accounts)
    await act()
    return buildReport({connection, accounts, roster: [], before, deployBlock: devnet.deployBlock, submissions: [], scenario: resolveDefaultScenario(), actors: []})
  }

  it('balances when ether only moves between accounts, stakes and gas', async () => {
    const report = await reportAfter(async () => {
      const solver = requireSigner(await connect({stateDir, account: 2}))
      await ensureRegistered(solver, {role: 'solver'})
      const submitter = requireSigner(await connect({stateDir, account: 1}))
      const hash = await submitter.walletClient.sendTransaction({to: accounts[3]!.address, value: parseEther('1'), chain: submitter.walletClient.chain, account: submitter.account})
      await waitForReceipt(submitter.publicClient, {hash})
    })
    assert.equal(report.conservation.ok, true, JSON.stringify(report.conservation))
    assert.ok(BigInt(report.conservation.gasFees) > 0n)
    assert.equal(report.accounts[2]!.stakeAfter, parseEther('1').toString())
  })

  it('catches a single wei leaving the tracked system', async () => {
    const report = await reportAfter(async () => {
      const submitter = requireSigner(await connect({stateDir, account: 1}))
      // An address the devnet does not track: the wei is gone from the system's books.
      const hash = await submitter.walletClient.sendTransaction({to: '0x000000000000000000000000000000000000dEaD', value: 1n, chain: submitter.walletClient.chain, account: submitter.account})
      await waitForReceipt(submitter.publicClient, {hash})
    })
    assert.equal(report.conservation.ok, false)
    assert.equal(BigInt(report.conservation.totalBefore) - BigInt(report.conservation.totalAfter) - BigInt(report.conservation.gasFees), 1n)
    assert.ok(report.failures.includes('money is not conserved'))
  })
})
