import {chmod, mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {superviseRunActor} from '../actorFleet.js'
import type {DevnetRun} from '../devnetRun.js'
import {spawnActor} from '../spawnActor.js'
import type {CrowdMember, CrowdOutcome, CrowdProcessSummary} from './types.js'
import {type CrowdMembers, dealMembers, submitterQuotas} from './crowdMembers.js'
import type {CrowdProcessConfig} from './runCrowdProcess.js'

/**
 * Runs a crowd on a started devnet: deals its members over `crowd.processes` processes (`gensyn devnet
 * crowd-worker`, supervised like every actor), and waits until each has seen every crowd task settle.
 */
export async function runCrowd(run: DevnetRun, members: CrowdMembers): Promise<CrowdOutcome> {
  const started = performance.now()
  const {crowd} = members
  const shares = dealMembers(members.members, crowd.processes)
  const files = await writeProcessConfigs(run, members, shares)
  const summaries: (CrowdProcessSummary | undefined)[] = shares.map(() => undefined)
  const settled = shares.map(() => 0)
  let reported = 0
  // Spawned in order, so crowd-1, crowd-2, ... are the devnet's actors in that order (processes.json, the report).
  const handles = files.map((file, index) =>
    superviseRunActor(run, () =>
      spawnActor({
        name: `crowd-${index + 1}`,
        role: 'crowd',
        account: -1,
        args: ['devnet', 'crowd-worker', '--config', file, '--state-dir', run.paths.actorStateDir],
        logDirs: run.paths.logDirs,
        onJson(event) {
          if (event.type === 'crowd-summary') summaries[index] = event as unknown as CrowdProcessSummary
          if (event.type !== 'crowd-progress') return
          settled[index] = Number(event.settled)
          // One line every 10 s for the whole crowd (the slowest process's count of settled tasks).
          if (performance.now() - reported < 10_000) return
          reported = performance.now()
          run.emit({type: 'phase', message: `crowd: ${Math.min(...settled)} of ${crowd.tasks} tasks settled, block ${String(event.head)}`})
        },
      }),
    ),
  )
  run.emit({type: 'phase', message: `crowd: ${members.members.length} actors in ${shares.length} processes, ${crowd.tasks} tasks of ${crowd.steps} synthetic steps`})
  await Promise.all(handles.map((handle) => handle.exited))
  return {processes: summaries, members: members.members.length, wallSeconds: (performance.now() - started) / 1000}
}

/** Each process's config file (its members, their keys and quotas), readable by this user only. */
async function writeProcessConfigs(run: DevnetRun, {crowd, members}: CrowdMembers, shares: readonly CrowdMember[][]): Promise<string[]> {
  const dir = path.join(run.paths.actorStateDir, 'crowd')
  await mkdir(dir, {recursive: true})
  const quotas = submitterQuotas(members, crowd.tasks)
  const submitters = members.filter((member) => member.role === 'submitter').map((member) => member.address)
  return Promise.all(
    shares.map(async (share, index) => {
      const config: CrowdProcessConfig = {
        index,
        crowd,
        members: share,
        quotas: Object.fromEntries(share.filter((member) => member.role === 'submitter').map((member) => [member.name, quotas[member.name] ?? 0])),
        submitters,
        fromBlock: run.deployBlock.toString(),
        pollMs: Math.max(100, Math.round(run.scenario.chain.blockTime * 1000)),
        seed: String(run.scenario.seed ?? 0),
      }
      const file = path.join(dir, `process-${index}.json`)
      await writeFile(file, JSON.stringify(config), {mode: 0o600})
      // writeFile's mode applies only to a new file: one left by an earlier run keeps its own.
      await chmod(file, 0o600)
      return file
    }),
  )
}
