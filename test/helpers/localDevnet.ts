import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type Anvil, createAnvil} from '../../src/chain/anvil.js'
import {createClients} from '../../src/chain/clients.js'
import {type DeployParams, defaultMarketParams, deployContracts, type MarketParams} from '../../src/chain/deployContracts.js'
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
 *
 * The market price is frozen at the default start unless `params.market` is given. Tasks a test leaves live keep
 * the book's demand above its solvers' capacity, and a moving price climbs 12.5 % every 5 blocks: with a miner
 * at a block every 250 ms it passes a job's maxPrice (2x the start for smoke-mlp) within seconds, and a solver
 * that starts later skips the task for good. Tests of the price controller pass their own `market`.
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
  const market = params?.market ?? frozenPrice(defaultMarketParams.initialPrice)
  const deployed = await deployContracts({publicClient, walletClient, params: {...params, market, config: {forcedErrorBps: 0, ...params?.config}}})
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

function frozenPrice(price: bigint): Partial<MarketParams> {
  return {initialPrice: price, priceFloor: price, priceCeiling: price}
}
