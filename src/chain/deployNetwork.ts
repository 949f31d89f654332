import {BaseError as ViemError, formatEther, type Hex, InsufficientFundsError} from 'viem'

import {createClients} from './clients.js'
import {type DeployedContracts, type DeployParams, deployContracts} from './deployContracts.js'
import {DeployError} from './errors.js'
import type {NetworkFile} from './networkFile.js'

export type DeployNetworkOptions = {
  rpcUrl: string
  privateKey: Hex
  params?: DeployParams | undefined
  /** A `gensyn store serve` URL recorded in the network file for every actor to use. */
  store?: string | undefined
}

export type DeployNetworkResult = {network: NetworkFile; gasUsed: bigint}

/**
 * Deploys the contracts to the chain at `rpcUrl` from `privateKey`'s account (any EVM chain: every
 * transaction waits for its receipt) and describes the result as a network file, keys left out.
 */
export async function deployNetwork(options: DeployNetworkOptions): Promise<DeployNetworkResult> {
  // Each transaction waits for its receipt: 250 ms polls keep that short without hammering a public RPC.
  const {publicClient, walletClient, chain} = await createClients({rpcUrl: options.rpcUrl, privateKey: options.privateKey, pollingInterval: 250})
  let deployed: DeployedContracts
  try {
    deployed = await deployContracts({publicClient, walletClient, params: options.params})
  } catch (error) {
    if (!(error instanceof ViemError)) throw error
    // viem's own message spans the calldata (the whole bytecode): keep one line that says what to do.
    if (error.walk((cause) => cause instanceof InsufficientFundsError)) {
      const balance = await publicClient.getBalance({address: walletClient.account.address}).catch(() => undefined)
      throw new DeployError(
        `--private-key: the deployer ${walletClient.account.address} cannot pay for the deployment's gas${balance === undefined ? '' : ` (balance ${formatEther(balance)} ETH)`}`,
        {cause: error},
      )
    }
    throw new DeployError(`deploy to ${options.rpcUrl}: ${error.shortMessage}`, {details: error.details, cause: error})
  }
  return {
    network: {
      rpcUrl: options.rpcUrl,
      chainId: chain.id,
      deployBlock: deployed.deployBlock.toString(),
      contracts: {
        registry: deployed.registry,
        market: deployed.market,
        config: deployed.config,
        book: deployed.book,
        disputes: deployed.disputes,
        thresholds: deployed.thresholds,
        game: deployed.game,
      },
      store: options.store,
      deployer: walletClient.account.address,
      treasury: deployed.params.treasury,
      createdAt: new Date().toISOString(),
    },
    gasUsed: deployed.gasUsed,
  }
}
