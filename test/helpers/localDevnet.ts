import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {createClients} from '../../src/chain/clients.js'
import {deployContracts} from '../../src/chain/deployContracts.js'
import {writeDevnetConfig} from '../../src/chain/devnetConfig.js'
import {type DevnetAccount, devnetAccounts} from '../../src/sim/devnetAccounts.js'

export type LocalDevnet = {
  anvil: Anvil
  /** Holds devnet.json and the blob store, so `connect({stateDir, account})` and the CLI find the chain. */
  stateDir: string
  accounts: DevnetAccount[]
  deployBlock: bigint
  stop(): Promise<void>
}

/**
 * A real anvil (automine) with the contracts deployed and a devnet.json written, without actor processes:
 * for tests that drive the protocol themselves. `extraAccounts` funds accounts beyond the roles.
 */
export async function startLocalDevnet(roles: {submitters: number; solvers: number; verifiers: number}, extraAccounts = 0): Promise<LocalDevnet> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-local-'))
  const accounts = devnetAccounts(roles)
  const anvil = createAnvil({accounts: accounts.length + extraAccounts})
  await anvil.start()
  const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: accounts[0]!.privateKey})
  const deployed = await deployContracts({publicClient, walletClient})
  await writeDevnetConfig(stateDir, {
    rpcUrl: anvil.rpcUrl,
    chainId: await publicClient.getChainId(),
    contracts: {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds},
    accounts,
    storeDir: path.join(stateDir, 'store'),
    createdAt: new Date().toISOString(),
  })
  return {
    anvil,
    stateDir,
    accounts,
    deployBlock: deployed.deployBlock,
    async stop() {
      await anvil.stop()
      await rm(stateDir, {recursive: true, force: true})
    },
  }
}
