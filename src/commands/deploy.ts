import path from 'node:path'

import {Flags} from '@oclif/core'
import type {Hex} from 'viem'
import {privateKeyToAddress} from 'viem/accounts'

import {deployNetwork} from '../chain/deployNetwork.js'
import {assertNetworkFileFree, type NetworkFile, writeNetworkFile} from '../chain/networkFile.js'
import {InvalidInputError} from '../errors/base.js'
import {deployParamsOf} from '../sim/deployParamsOf.js'
import {loadScenario} from '../sim/scenario.js'
import {isStoreUrl, parseStoreToken} from '../store/index.js'
import {BaseCommand} from '../ui/baseCommand.js'
import {ethRpcUrl} from '../ui/flags.js'
import {parseAddress} from '../ui/parseAddresses.js'

/** The network file as written, but the store token: a secret has no place in logs. */
export type DeployResult = Omit<NetworkFile, 'storeToken'> & {file: string; gasUsed: string; storeTokenRecorded: boolean}

export default class Deploy extends BaseCommand {
  static override summary = 'Deploy the gensyn contracts to any EVM chain and write a network file for the actors.'
  static override description =
    'Deploys RoleRegistry, ProtocolConfig, SolverBook, TaskMarketDisputes, TaskMarket, ThresholdRegistry and PinpointGame from the --private-key account (it pays the gas and becomes the owner and, unless --treasury, the treasury), wires them, and writes a network file: the RPC URL, chain id, deployment block, contract addresses and the optional store URL and upload token, never a key (with a token, the file is a secret and is written readable by its owner only). Every role command loads it with --network FILE (flags override its values), so an actor on any machine needs the file, its own key and nothing else (docs/multi-host.md). The protocol parameters are the contracts\' defaults, or a scenario\'s `chain` and `protocol` sections with --scenario.'
  static override examples = [
    {description: 'Deploy to a local anvil with its first dev key', command: '<%= config.bin %> <%= command.id %> --rpc-url http://127.0.0.1:8545 --private-key $KEY --out network.json'},
    {description: 'Deploy with the smoke scenario\'s parameters and record a shared store and its upload token', command: '<%= config.bin %> <%= command.id %> --rpc-url http://10.0.0.1:8545 --private-key $KEY --scenario fixtures/scenarios/smoke.yaml --store http://10.0.0.2:8600 --store-token $STORE_TOKEN'},
    {description: 'Script it', command: '<%= config.bin %> <%= command.id %> --rpc-url $RPC --private-key $KEY --json | jq .contracts.market'},
  ]
  static override flags = {
    'rpc-url': Flags.string({description: 'JSON-RPC URL of the chain to deploy to (else GENSYN_RPC_URL, else ETH_RPC_URL).', env: 'GENSYN_RPC_URL', default: ethRpcUrl, required: true}),
    'private-key': Flags.string({description: 'Key (0x + 64 hex) of the deployer account, which pays the gas.', env: 'GENSYN_PRIVATE_KEY', required: true}),
    out: Flags.string({description: 'Network file to write.', default: 'network.json'}),
    force: Flags.boolean({description: 'Replace an existing --out file.'}),
    store: Flags.string({description: 'URL of a `gensyn store serve` server, recorded in the network file for every actor.'}),
    'store-token': Flags.string({description: "That server's upload token (its --token), recorded beside --store so that actors can upload; ignored without --store.", env: 'GENSYN_STORE_TOKEN'}),
    scenario: Flags.string({description: "Deploy a scenario's protocol parameters (its `chain` and `protocol` sections; the rest is ignored)."}),
    treasury: Flags.string({description: 'Account that receives slashed stake (default: the deployer).'}),
    'poll-interval': Flags.integer({
      description: "Milliseconds between the actors' polls of this chain, recorded in the network file (default: each actor measures the block time).",
      min: 10,
    }),
  }

  async run(): Promise<DeployResult> {
    const {flags} = await this.parse(Deploy)
    const privateKey = flags['private-key']
    if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new InvalidInputError('--private-key: expected 0x followed by 64 hex digits')
    if (flags.store !== undefined && !isStoreUrl(flags.store)) throw new InvalidInputError(`--store: expected the http(s):// URL of a store server, got ${flags.store}`)
    const storeToken = flags.store === undefined || flags['store-token'] === undefined ? undefined : parseStoreToken(flags['store-token'], '--store-token')
    const chosenTreasury = parseAddress('--treasury', flags.treasury)
    // Everything that can fail without gas fails before the first transaction.
    if (!flags.force) await assertNetworkFileFree(flags.out)
    const scenario = flags.scenario === undefined ? undefined : await loadScenario(flags.scenario)
    const treasury = chosenTreasury ?? privateKeyToAddress(privateKey as Hex)
    const params = scenario ? deployParamsOf(scenario, treasury) : {treasury}

    if (!flags.json) this.log(`deploying to ${flags['rpc-url']} from ${privateKeyToAddress(privateKey as Hex)}${scenario ? ` with the parameters of scenario ${scenario.name}` : ''}`)
    const {network, gasUsed} = await deployNetwork({rpcUrl: flags['rpc-url'], privateKey: privateKey as Hex, params, store: flags.store})
    const file = await writeNetworkFile(flags.out, {...network, pollMs: flags['poll-interval'], storeToken}, flags.force)
    const shown = path.relative(process.cwd(), file) || file
    this.log(`chain ${network.chainId}, block ${network.deployBlock}: market ${network.contracts.market}, registry ${network.contracts.registry} (${gasUsed} gas)`)
    this.log(`wrote ${shown}: run each actor with --network ${shown} and its own --private-key`)
    return {...network, pollMs: flags['poll-interval'], file, gasUsed: gasUsed.toString(), storeTokenRecorded: storeToken !== undefined}
  }
}
