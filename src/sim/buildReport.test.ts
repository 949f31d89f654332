import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {parseEther} from 'viem'

import {type Anvil, createAnvil} from '../chain/anvil.js'
import {createClients} from '../chain/clients.js'
import {deployContracts} from '../chain/deployContracts.js'
import {writeDevnetConfig} from '../chain/devnetConfig.js'
import {connect, type Connection, requireSigner} from '../protocol/connect.js'
import {ensureRegistered} from '../protocol/ensureRegistered.js'
import {takeBalanceSnapshot} from './balances.js'
import {buildReport} from './buildReport.js'
import {devnetAccounts} from './devnetAccounts.js'
import {resolveDefaultScenario} from './scenario.js'

describe('buildReport: the money check (real anvil)', function () {
  this.timeout(60_000)
  const accounts = devnetAccounts({submitters: 1, solvers: 1, verifiers: 1})
  let anvil: Anvil
  let stateDir: string
  let connection: Connection
  let deployBlock: bigint

  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-report-'))
    anvil = createAnvil({accounts: accounts.length + 1})
    await anvil.start()
    const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: accounts[0]!.privateKey})
    const deployed = await deployContracts({publicClient, walletClient})
    deployBlock = deployed.deployBlock
    await writeDevnetConfig(stateDir, {
      rpcUrl: anvil.rpcUrl,
      chainId: await publicClient.getChainId(),
      contracts: {registry: deployed.registry, market: deployed.market},
      accounts,
      storeDir: path.join(stateDir, 'store'),
      createdAt: new Date().toISOString(),
    })
    connection = await connect({stateDir})
  })
  after(async () => {
    await anvil?.stop()
    await rm(stateDir, {recursive: true, force: true})
  })

  async function reportAfter(act: () => Promise<void>) {
    const before = await takeBalanceSnapshot(connection, accounts)
    await act()
    return buildReport({connection, accounts, before, deployBlock, submissions: [], scenario: resolveDefaultScenario(), actors: []})
  }

  it('balances when ether only moves between accounts, stakes and gas', async () => {
    const report = await reportAfter(async () => {
      const solver = requireSigner(await connect({stateDir, account: 2}))
      await ensureRegistered(solver, 'solver')
      const submitter = requireSigner(await connect({stateDir, account: 1}))
      const hash = await submitter.walletClient.sendTransaction({to: accounts[3]!.address, value: parseEther('1'), chain: submitter.walletClient.chain, account: submitter.account})
      await submitter.publicClient.waitForTransactionReceipt({hash})
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
      await submitter.publicClient.waitForTransactionReceipt({hash})
    })
    assert.equal(report.conservation.ok, false)
    assert.equal(BigInt(report.conservation.totalBefore) - BigInt(report.conservation.totalAfter) - BigInt(report.conservation.gasFees), 1n)
    assert.ok(report.failures.includes('money is not conserved'))
  })
})
