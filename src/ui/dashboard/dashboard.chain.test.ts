import assert from 'node:assert/strict'
import {EventEmitter} from 'node:events'
import path from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {render} from 'ink-testing-library'
import {createElement} from 'react'
import {parseEther} from 'viem'

import {actorRoster} from '../../sim/actorRoster.js'
import type {DevnetEvent} from '../../sim/createDevnet.js'
import {scenarioAccounts} from '../../sim/devnetAccounts.js'
import {loadScenario, type ResolvedScenario} from '../../sim/scenario.js'
import {packageRoot} from '../../util/packageRoot.js'
import {Dashboard, type DashboardStore, LiveDashboard} from './Dashboard.js'
import {applyChainView, applyDevnetEvent, attachRoster, type ChainView, createDashboardState, type DashboardState} from './dashboardState.js'
import {canShowDashboard} from './canShowDashboard.js'

const rpcUrl = 'http://127.0.0.1:40901'

/** A devnet's dashboard state, built the way the live one is: the real roster of a shipped scenario, then events. */
function stateFor(scenario: ResolvedScenario): {state: DashboardState; names: Map<string, `0x${string}`>} {
  const accounts = scenarioAccounts(scenario.actors)
  const roster = actorRoster(scenario, accounts)
  const state = createDashboardState({scenario: scenario.name, stateDir: '/tmp/gensyn-devnet-x'})
  for (const message of ['starting anvil', `anvil on ${rpcUrl}; deploying contracts`, 'spawned the actors (backend wasm)']) applyDevnetEvent(state, {type: 'phase', message})
  attachRoster(state, {rpcUrl, roster, accounts})
  const names = new Map<string, `0x${string}`>()
  for (const entry of roster) names.set(entry.name, entry.account.address)
  accounts.filter((account) => account.role === 'submitter').forEach((account, index) => names.set(`submitter-${index + 1}`, account.address))
  return {state, names}
}

function actor(name: string, role: string, event: Record<string, unknown>): DevnetEvent {
  return {type: 'actor', actor: name, role, event: {role, ...event}}
}

function chainView(state: DashboardState, names: Map<string, `0x${string}`>, block: bigint, tasks: ChainView['tasks'], events: ChainView['events']): ChainView {
  return {
    head: {number: block, timestamp: 1_795_258_815n + block},
    balances: [...names.values()].map((address, index) => ({address, wallet: parseEther('10000') - BigInt(index) * 123_456_789_000_000n, stake: parseEther('1')})),
    tasks,
    jackpot: parseEther('0.0004404'),
    events,
  }
}

const zero = '0x0000000000000000000000000000000000000000'

/**
 * The colluding scenario as its run goes (the lines are what the actors print with --json): the cheater claims
 * and trains, its partner accepts, the whistleblower challenges, both are slashed, an honest solver retrains.
 */
async function colludingRun(): Promise<{state: DashboardState; names: Map<string, `0x${string}`>; midTraining: DashboardState}> {
  const scenario = await loadScenario(path.join(packageRoot, 'fixtures/scenarios/colluding.yaml'))
  const {state, names} = stateFor(scenario)
  const address = (name: string) => names.get(name)!
  for (const [name, role] of [
    ['cheater-1', 'solver'],
    ['solver-1', 'solver'],
    ['colluding-verifier-1', 'verifier'],
    ['verifier-1', 'verifier'],
    ['whistleblower-1', 'whistleblower'],
  ] as const) {
    applyDevnetEvent(state, actor(name, role, {type: 'ready', address: address(name), runtime: 'wasm(simd) tfjs@4.22.0'}))
  }
  applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'offer-listed', ask: '100000000000', capacity: 1, price: '10000000000000'}))
  applyDevnetEvent(state, {type: 'phase', message: 'submitter-1: submitting fixtures/jobs/smoke-mlp.yaml'})
  applyChainView(
    state,
    chainView(state, names, 19n, [{id: 1n, status: 'Submitted', solver: zero, verifier: zero, attempts: 0}], [
      {block: 19n, kind: 'submit', actor: 'submitter-1', text: 'submitted #1, escrow 0.017616 ETH'},
    ]),
  )
  applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'claimed', taskId: '1', claimBlock: '20', gasUsed: '289607', price: '10000000000000'}))
  applyDevnetEvent(state, actor('solver-1', 'solver', {type: 'lost-race', taskId: '1', reason: 'InvalidStatus'}))
  for (let step = 1; step <= 120; step++) {
    applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'progress', taskId: '1', step, steps: 200, from: 0, loss: 2 / step}))
    if (step % 50 === 0) applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'checkpoint', taskId: '1', step, hash: `0x${'ab'.repeat(32)}`}))
  }
  applyChainView(state, chainView(state, names, 22n, [{id: 1n, status: 'Claimed', solver: address('cheater-1'), verifier: zero, attempts: 0}], []))
  const midTraining = structuredClone(state)

  applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'committed', taskId: '1', checkpoints: 5, totalSteps: 200, trainingSeconds: 0.87}))
  applyDevnetEvent(state, actor('colluding-verifier-1', 'verifier', {type: 'claimed', taskId: '1', randomness: `0x${'1b'.repeat(32)}`, gasUsed: '146594'}))
  applyDevnetEvent(state, actor('colluding-verifier-1', 'verifier', {type: 'verdict', taskId: '1', accepted: true}))
  applyDevnetEvent(state, actor('whistleblower-1', 'whistleblower', {type: 'checking', taskId: '1'}))
  applyDevnetEvent(state, actor('whistleblower-1', 'whistleblower', {type: 'segment', taskId: '1', segment: 2, startStep: 100, endStep: 150, match: false, seconds: 0.2}))
  applyDevnetEvent(state, actor('whistleblower-1', 'whistleblower', {type: 'challenged', taskId: '1', segment: 2, claimedEndHash: `0x${'cd'.repeat(32)}`, index: '0'}))
  applyDevnetEvent(state, actor('whistleblower-1', 'whistleblower', {type: 'settle', taskId: '1', gasUsed: '1', outcome: {type: 'dispute-started', disputeId: '1'}}))
  applyDevnetEvent(state, actor('cheater-1', 'solver', {type: 'dispute', event: {type: 'move', disputeId: '1', taskId: '1', move: 'state', phase: 'Steps', index: '3'}}))
  applyChainView(
    state,
    chainView(state, names, 41n, [{id: 1n, status: 'Submitted', solver: zero, verifier: zero, attempts: 1}], [
      {block: 40n, kind: 'dispute', actor: 'market', text: 'dispute 1 on #1 resolved: ChallengerWon'},
      {block: 40n, kind: 'slash', actor: 'cheater-1', text: 'SLASHED 1 ETH on #1: 0.5 ETH to whistleblower-1'},
      {block: 40n, kind: 'slash', actor: 'colluding-verifier-1', text: 'SLASHED 1 ETH on #1: 0.5 ETH to whistleblower-1'},
    ]),
  )
  applyDevnetEvent(state, actor('solver-1', 'solver', {type: 'claimed', taskId: '1', claimBlock: '43', gasUsed: '289607', price: '9000000000000'}))
  applyDevnetEvent(state, actor('solver-1', 'solver', {type: 'progress', taskId: '1', step: 50, steps: 200, from: 0, loss: 0.5}))
  applyChainView(
    state,
    chainView(state, names, 45n, [{id: 1n, status: 'Claimed', solver: address('solver-1'), verifier: zero, attempts: 1}], []),
  )
  return {state, names, midTraining}
}

function renderOnce(state: DashboardState, size = {columns: 100, rows: 30}): string | undefined {
  const {lastFrame, unmount} = render(createElement(Dashboard, {state, size}))
  const frame = lastFrame()
  unmount()
  return frame
}

function frameLines(frame: string | undefined): string[] {
  assert.ok(frame !== undefined, 'nothing rendered')
  return stripVTControlCharacters(frame).split('\n')
}

function assertFits(lines: string[], columns: number, rows: number): void {
  assert.ok(lines.length <= rows, `${lines.length} rows for a ${rows}-row terminal`)
  for (const line of lines) assert.ok(line.length <= columns, `a ${line.length}-column row for ${columns} columns: ${JSON.stringify(line)}`)
}

describe('the devnet dashboard (ink)', () => {
  it('shows the chain head, every actor with role, strategy, balance, stake, activity and a training bar at 80x24', async () => {
    const {midTraining} = await colludingRun()
    const {lastFrame, unmount} = render(createElement(Dashboard, {state: midTraining, size: {columns: 80, rows: 24}}))
    const lines = frameLines(lastFrame())
    unmount()
    assertFits(lines, 80, 24)
    const text = lines.join('\n')
    assert.match(lines[0]!, /gensyn devnet · colluding · block 22 /)
    assert.match(lines[0]!, /RUNNING/)
    for (const name of ['submitter-1', 'cheater-1', 'solver-1', 'colluding-verif', 'verifier-1', 'verifier-3', 'whistleblower-1']) assert.ok(text.includes(name), `no ${name}:\n${text}`)
    const cheater = lines.find((line) => line.startsWith('cheater-1'))!
    assert.match(cheater, /solver +skip-step/)
    assert.match(cheater, /\d{4,5}\.\d\d +1\.00 /, `balance and stake: ${cheater}`)
    // 120 of 200 steps: 60 %, the bar 60 % filled.
    assert.match(cheater, /#1 \[█+░+\] +60%/)
    const bar = /\[(█+)(░+)\]/.exec(cheater)!
    assert.equal(Math.round((bar[1]!.length / (bar[1]!.length + bar[2]!.length)) * 10), 6)
    assert.match(text, /colluding-verif\S* +verify +colluding/)
    assert.match(text, /TASKS +1 total: .*training 1/)
    assert.match(text, /#1 +Claimed +cheater-1/)
    assert.match(text, /submitter-1 +submitted #1, escrow 0\.017616 ETH/)
    assert.match(text, /cheater-1 +claimed #1 at 10000 gwei\/WU/)
    assert.match(lines.at(-1)!, /q quit · p pause/)
  })

  it('shows the feed of verdicts, challenges, disputes and slashes as the run goes on, newest last', async () => {
    const {state} = await colludingRun()
    const {lastFrame, unmount} = render(createElement(Dashboard, {state, size: {columns: 80, rows: 24}}))
    const lines = frameLines(lastFrame())
    unmount()
    assertFits(lines, 80, 24)
    const text = lines.join('\n')
    const feed = lines.slice(lines.findIndex((line) => line.startsWith('EVENTS')) + 1, -1)
    const order = ['verdict #1: accepted', 'CHALLENGED #1, segment 2', 'dispute 1 started on #1', 'resolved: ChallengerWon', 'SLASHED 1 ETH on #1', 'claimed #1 at 9000 gwei/WU']
    const positions = order.map((needle) => feed.findIndex((line) => line.includes(needle)))
    for (const [index, position] of positions.entries()) assert.ok(position >= 0, `feed lacks "${order[index]}":\n${feed.join('\n')}`)
    assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'feed out of order')
    assert.match(text, /whistleblower-1 +whistle +honest .*settling #1: dispute 1/)
    assert.match(text, /cheater-1 .*dispute 1: Steps state 3/)
    assert.match(text, /solver-1 .*#1 \[█+░+\] +25%/)
    assert.match(text, /#1 +Claimed +solver-1 +\(1 rejected\)/)
  })

  it('draws the loss per checkpoint of the task being trained as a sparkline, a point per checkpoint event', async () => {
    const scenario = await loadScenario(path.join(packageRoot, 'fixtures/scenarios/colluding.yaml'))
    const {state} = stateFor(scenario)
    const solve = (event: Record<string, unknown>) => applyDevnetEvent(state, actor('solver-1', 'solver', event))
    const trainingRows = () => frameLines(renderOnce(state, {columns: 100, rows: 30})).filter((line) => /^ +#1 +solver-1 +loss /.test(line))
    solve({type: 'claimed', taskId: '1', claimBlock: '20', gasUsed: '289607', price: '10000000000000'})
    // The start checkpoint comes before any step: no loss yet, no curve.
    solve({type: 'checkpoint', taskId: '1', step: 0, hash: `0x${'00'.repeat(32)}`})
    assert.doesNotMatch(frameLines(renderOnce(state)).join('\n'), /TRAINING/)
    // As trainJob announces them: each checkpoint once stored, at the next boundary, with its own step's loss.
    const losses: number[] = []
    const announce = (step: number, loss: number) => solve({type: 'checkpoint', taskId: '1', step, hash: `0x${'ab'.repeat(32)}`, loss})
    for (let step = 1; step <= 125; step++) {
      const loss = 2.3 * Math.exp(-step / 40) + (step % 7) * 0.01
      solve({type: 'progress', taskId: '1', step, steps: 200, from: 0, loss})
      if (step % 25 === 0) {
        if (losses.length > 0) announce(step - 25, losses.at(-1)!)
        losses.push(loss)
      }
    }
    announce(125, losses.at(-1)!)
    const frame = frameLines(renderOnce(state, {columns: 100, rows: 30}))
    assertFits(frame, 100, 30)
    assert.ok(frame.some((line) => line.startsWith('TRAINING')), frame.join('\n'))
    const [row] = trainingRows()
    assert.ok(row, `no curve for #1:\n${frame.join('\n')}`)
    // Five checkpoints, falling loss: five bars from the highest to the lowest, then the first and last loss.
    const bars = /loss ([▁▂▃▄▅▆▇█]+) /.exec(row)![1]!
    assert.equal(bars.length, 5)
    assert.equal(bars[0], '█')
    assert.equal(bars.at(-1), '▁')
    assert.ok(row.includes(`${losses[0]!.toFixed(3)} → ${losses.at(-1)!.toFixed(3)} · 5 ckpts`), row)
    assert.match(row, /now \d\.\d{3} at step 125/)
    // One more checkpoint, one more bar; an event without a loss (a cheat's proof) takes the last step's when it is at that step.
    for (let step = 126; step <= 150; step++) solve({type: 'progress', taskId: '1', step, steps: 200, from: 0, loss: 0.2})
    solve({type: 'checkpoint', taskId: '1', step: 150, hash: `0x${'cd'.repeat(32)}`})
    assert.equal(/loss ([▁▂▃▄▅▆▇█]+) /.exec(trainingRows()[0]!)![1]!.length, 6)
    // a late event without a loss adds no point: the loss of its step is no longer known
    for (let step = 151; step <= 180; step++) solve({type: 'progress', taskId: '1', step, steps: 200, from: 0, loss: 0.1})
    solve({type: 'checkpoint', taskId: '1', step: 175, hash: `0x${'ef'.repeat(32)}`})
    assert.equal(/loss ([▁▂▃▄▅▆▇█]+) /.exec(trainingRows()[0]!)![1]!.length, 6)
  })

  it('shows a crashed actor restarting, how often it was restarted, and the crash in the feed', async () => {
    const {state} = await colludingRun()
    const exit = {exitCode: undefined, signal: 'SIGKILL', stderrTail: ''}
    applyDevnetEvent(state, {type: 'actor-crash', actor: 'verifier-1', role: 'verifier', crash: {actor: 'verifier-1', role: 'verifier', cause: 'chaos', exit, atSeconds: 12, restart: {attempt: 1, delayMs: 1000}}})
    const restarting = frameLines(renderOnce(state)).join('\n')
    assert.match(restarting, /verifier-1 ↻1 .*restarting in 1 s/)
    assert.match(restarting, /verifier-1 +killed by the chaos monkey \(SIGKILL\); restarting in 1 s \(restart 1\)/)
    applyDevnetEvent(state, {type: 'actor-crash', actor: 'verifier-1', role: 'verifier', crash: {actor: 'verifier-1', role: 'verifier', cause: 'crash', exit: {...exit, signal: undefined, exitCode: 1}, atSeconds: 14, restart: undefined}})
    assert.match(frameLines(renderOnce(state)).join('\n'), /verifier-1 ↻1 .*crashed: given up/)
  })

  it('never draws more than the terminal holds: "+N more" for actors, the newest events, any size from 80x24 up', async () => {
    const scenario = await loadScenario(path.join(packageRoot, 'fixtures/scenarios/colluding.yaml'))
    const crowded = {...scenario, actors: {...scenario.actors, verifiers: Array.from({length: 20}, () => scenario.actors.verifiers[1]!)}}
    const {state, names} = stateFor(crowded)
    for (let index = 0; index < 60; index++) {
      applyDevnetEvent(state, actor(`verifier-${(index % 20) + 1}`, 'verifier', {type: 'verdict', taskId: String(index + 1), accepted: true}))
    }
    const tasks = Array.from({length: 30}, (_, index) => ({id: BigInt(index + 1), status: 'Settled' as const, solver: names.get('solver-1')!, verifier: names.get('verifier-1')!, attempts: 0}))
    applyChainView(state, chainView(state, names, 9999n, tasks, []))
    for (const [columns, rows] of [
      [80, 24],
      [100, 30],
      [132, 43],
      [200, 60],
    ] as const) {
      const {lastFrame, unmount} = render(createElement(Dashboard, {state, size: {columns, rows}}))
      const lines = frameLines(lastFrame())
      unmount()
      assertFits(lines, columns, rows)
      const text = lines.join('\n')
      assert.match(text, /\+\d+ more/, `no "+N more" at ${columns}x${rows}`)
      assert.ok(text.includes('verdict #60: accepted'), `the newest event is missing at ${columns}x${rows}`)
      assert.ok(!text.includes('verdict #1: accepted'), `the oldest event crowds out newer ones at ${columns}x${rows}`)
      assert.match(text, /settled 30/)
    }
  })

  it('reads q, Ctrl-C and p from the keyboard, shows PAUSED, and follows the terminal when it is resized', async () => {
    const {midTraining} = await colludingRun()
    let version = 0
    const listeners = new Set<() => void>()
    const store: DashboardStore = {
      getState: () => midTraining,
      getVersion: () => version,
      subscribe(listener) {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
    }
    const terminal = Object.assign(new EventEmitter(), {columns: 80, rows: 24})
    const pressed: string[] = []
    const {stdin, lastFrame, unmount} = render(
      createElement(LiveDashboard, {store, keys: {onQuit: () => pressed.push('quit'), onTogglePause: () => pressed.push('pause')}, stdout: terminal as unknown as NodeJS.WriteStream}),
    )
    const tick = () => new Promise((resolve) => setTimeout(resolve, 50))
    await tick()
    stdin.write('p')
    await tick()
    stdin.write('x')
    stdin.write('q')
    await tick()
    stdin.write('\u0003')
    await tick()
    assert.deepEqual(pressed, ['pause', 'quit', 'quit'])

    midTraining.mode = 'paused'
    version++
    for (const listener of listeners) listener()
    await tick()
    assert.match(frameLines(lastFrame())[0]!, /PAUSED/)
    assert.match(frameLines(lastFrame()).at(-1)!, /p resume/)

    terminal.columns = 120
    terminal.rows = 30
    terminal.emit('resize')
    await tick()
    const wide = frameLines(lastFrame())
    unmount()
    assertFits(wide, 120, 30)
    assert.ok(wide.some((line) => line.length > 80), 'the frame did not grow with the terminal')
    assert.ok(wide.some((line) => /60% 120\/200 ckpt 100/.test(line)), 'a wide terminal shows the step and the last checkpoint')
  })

  it('says when another party settled the task an actor was waiting on', async () => {
    const {state, names} = await colludingRun()
    applyDevnetEvent(state, actor('solver-1', 'solver', {type: 'committed', taskId: '1', checkpoints: 5, totalSteps: 200, trainingSeconds: 1.2}))
    applyChainView(state, chainView(state, names, 60n, [{id: 1n, status: 'Settled', solver: names.get('solver-1')!, verifier: names.get('verifier-1')!, attempts: 1}], []))
    assert.equal(state.actors.find((row) => row.name === 'solver-1')!.activity, 'idle (#1 settled)')
  })

  it('is only drawn on a terminal with a keyboard and without --json', () => {
    const tty = {isTTY: true}
    const env = {TERM: 'xterm-256color'}
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: tty, env}), true)
    assert.equal(canShowDashboard({json: true, stdout: tty, stdin: tty, env}), false)
    assert.equal(canShowDashboard({json: false, stdout: {isTTY: false}, stdin: tty, env}), false)
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: {}, env}), false)
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: tty, env: {TERM: 'dumb'}}), false)
    // CI: ink would draw nothing until exit, so the plain log it is, terminal or not.
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: tty, env: {...env, CI: 'true'}}), false)
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: tty, env: {...env, CONTINUOUS_INTEGRATION: '1'}}), false)
    assert.equal(canShowDashboard({json: false, stdout: tty, stdin: tty, env: {...env, CI: 'false'}}), true)
  })
})
