import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {readDevnetConfig} from '../../chain/devnetConfig.js'
import {connect, type Connection} from '../../protocol/connect.js'
import type {RosterEntry} from '../actorRoster.js'
import {takeBalanceSnapshot} from '../balances.js'
import {buildReport, type DevnetReport} from '../buildReport.js'
import type {DevnetAccount, DevnetRole} from '../devnetAccounts.js'
import type {ActorRole} from '../spawnActor.js'
import {resolveDefaultScenario, type ResolvedScenario} from '../scenario.js'

const roles: readonly DevnetRole[] = ['treasury', 'submitter', 'solver', 'verifier', 'whistleblower']
const commandRoles: Record<string, RosterEntry['role']> = {solve: 'solver', verify: 'verifier', challenge: 'whistleblower'}

/**
 * The report of a devnet that is still running, read from its chain now. The scenario is not on disk, so
 * the run is held only to the protocol's own promises (money conserved, no honest actor slashed, no cheat
 * paid); the actors' names and strategies come from their running processes (processes.json and each
 * one's command line).
 */
export async function rebuildReport(stateDir: string): Promise<DevnetReport> {
  const config = await readDevnetConfig(stateDir)
  const connection = await connect({stateDir})
  const accounts: DevnetAccount[] = config.accounts.map((account) => ({
    index: account.index,
    address: account.address,
    privateKey: account.privateKey,
    role: roles.includes(account.role as DevnetRole) ? (account.role as DevnetRole) : 'submitter',
  }))
  const processes = await readProcesses(stateDir)
  const roster = await rosterFromProcesses(processes, accounts)
  const deployBlock = config.deployBlock ?? 0n
  const before = await takeBalanceSnapshot(connection, accounts, await firstDeployedBlock(connection, deployBlock))
  return buildReport({
    connection,
    accounts,
    roster,
    before,
    deployBlock,
    submissions: [],
    scenario: liveScenario(),
    actors: processes.map(({name, role}) => ({name, role: roster.find((entry) => entry.name === name)?.role ?? actorRole(role), exit: undefined})),
  })
}

/** The first block at which the market exists: the contracts' balances and counters read from there. */
async function firstDeployedBlock(connection: Connection, deployBlock: bigint): Promise<bigint> {
  const head = await connection.publicClient.getBlockNumber()
  for (let block = deployBlock; block <= head; block++) {
    const code = await connection.publicClient.getCode({address: connection.contracts.market, blockNumber: block})
    if (code !== undefined && code !== '0x') return block
  }
  return head
}

/** No expectations of jobs: the running devnet's scenario is unknown here. */
function liveScenario(): ResolvedScenario {
  return {...resolveDefaultScenario(), name: 'live devnet', source: '(running devnet)', jobs: []}
}

type ProcessEntry = {name: string; pid: number | undefined; role?: string}

async function readProcesses(stateDir: string): Promise<ProcessEntry[]> {
  try {
    const file = JSON.parse(await readFile(path.join(stateDir, 'processes.json'), 'utf8')) as {actors?: ProcessEntry[]}
    return Array.isArray(file.actors) ? file.actors : []
  } catch {
    return []
  }
}

/**
 * Each running actor's account and strategy, from its command line (`gensyn solve --loop --strategy X
 * --account N ...`); an account whose process cannot be read keeps a name made from its role and index.
 */
async function rosterFromProcesses(processes: readonly ProcessEntry[], accounts: readonly DevnetAccount[]): Promise<RosterEntry[]> {
  const roster: RosterEntry[] = []
  for (const {name, pid} of processes) {
    if (pid === undefined) continue
    let args: string[]
    try {
      args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
    } catch {
      continue
    }
    const role = commandRoles[args.find((arg) => arg in commandRoles) ?? '']
    const option = (flag: string) => {
      const at = args.indexOf(flag)
      return at === -1 ? undefined : args[at + 1]
    }
    const account = accounts.find((candidate) => String(candidate.index) === option('--account'))
    if (!role || !account) continue
    const played = option('--strategy') ?? 'honest'
    const strategy = name.startsWith('dropout-') ? (played === 'honest' ? 'dropout' : `${played}+dropout`) : played
    roster.push({account, role, name, strategy, args: []})
  }
  for (const account of accounts) {
    if (roster.some((entry) => entry.account.index === account.index)) continue
    if (account.role === 'solver' || account.role === 'verifier' || account.role === 'whistleblower') {
      roster.push({account, role: account.role, name: `${account.role}-account-${account.index}`, strategy: 'unknown', args: []})
    }
  }
  return roster
}

function actorRole(role: string | undefined): ActorRole {
  return role === 'solver' || role === 'verifier' || role === 'whistleblower' ? role : 'submitter'
}
