import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {createClients} from '../../src/chain/clients.js'
import {type DeployParams, deployContracts} from '../../src/chain/deployContracts.js'
import {writeDevnetConfig} from '../../src/chain/devnetConfig.js'
import {type DevnetAccount, type DevnetRoleCounts, devnetAccounts} from '../../src/sim/devnetAccounts.js'

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
 * for tests that drive the protocol themselves. `extraAccounts` funds accounts beyond the roles; `params`
 * overrides the deployment's (ProtocolConfig fields under `config`, e.g. `{config: {forcedErrorBps: 0}}`).
 * Forced errors are off unless `params.config.forcedErrorBps` turns them on: a test that does not ask for one
 * must not draw one by chance (the default is 5 %).
 */
export async function startLocalDevnet(
  roles: DevnetRoleCounts,
  extraAccounts = 0,
  params?: DeployParams,
): Promise<LocalDevnet> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'gensyn-local-'))
  const accounts = devnetAccounts(roles)
  const anvil = createAnvil({accounts: accounts.length + extraAccounts})
  await anvil.start()
  const {publicClient, walletClient} = await createClients({rpcUrl: anvil.rpcUrl, privateKey: accounts[0]!.privateKey})
  const deployed = await deployContracts({publicClient, walletClient, params: {...params, config: {forcedErrorBps: 0, ...params?.config}}})
  await writeDevnetConfig(stateDir, {
    rpcUrl: anvil.rpcUrl,
    chainId: await publicClient.getChainId(),
    deployBlock: deployed.deployBlock,
    contracts: {registry: deployed.registry, market: deployed.market, thresholds: deployed.thresholds, config: deployed.config, game: deployed.game, book: deployed.book},
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
