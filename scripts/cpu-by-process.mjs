// Where a command's CPU goes, process by process (docs/testing.md, "Where the CPU goes"): runs the command, reads
// the user + system time of it and every process it starts from /proc every 0.5 s while it runs, keeps each
// process's last reading and sums them by kind (mocha workers, anvil, each gensyn command). Linux only. A process
// that lives under 0.5 s, or whose parent ended before it was seen, may be missed, and a process's last half second
// is not counted, so the total reads a little under `/usr/bin/time`'s.
//
//   node scripts/cpu-by-process.mjs npx mocha
//   node scripts/cpu-by-process.mjs node bin/run.js devnet up --scenario smoke --until-settled
import {spawn} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'

const ticksPerSecond = 100 // USER_HZ: 100 on every Linux this runs on
const command = process.argv.slice(2)
if (command.length === 0) {
  console.error('usage: node scripts/cpu-by-process.mjs <command> [args...]')
  process.exit(2)
}

const last = new Map() // "pid:starttime" -> {seconds, cmdline}
const child = spawn(command[0], command.slice(1), {stdio: 'inherit'})
const family = new Set([String(child.pid)])
const sampler = setInterval(sample, 500)
child.on('exit', (code) => {
  clearInterval(sampler)
  printTable()
  process.exit(code ?? 1)
})

function sample() {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (!family.has(pid) && !family.has(fields[1])) continue
      family.add(pid)
      const seconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
      if (cmdline !== '') last.set(`${pid}:${fields[19]}`, {seconds, cmdline})
    } catch {
      // gone between the listing and the read
    }
  }
}

function kindOf(cmdline) {
  if (/\banvil\b/.test(cmdline) && !cmdline.includes('run.js')) return 'anvil'
  if (cmdline.includes('mocha')) return 'mocha'
  const gensyn = /bin\/run\.js\s+(.*)$/.exec(cmdline)
  if (gensyn) {
    const words = gensyn[1].split(' ')
    const flag = words.findIndex((word) => word.startsWith('-'))
    return `gensyn ${(flag === -1 ? words : words.slice(0, flag)).filter((word) => !word.includes('/')).join(' ')}`
  }
  return cmdline.split(' ')[0].split('/').at(-1)
}

function printTable() {
  const kinds = new Map()
  for (const {seconds, cmdline} of last.values()) {
    if (cmdline.includes('cpu-by-process.mjs')) continue
    const kind = kindOf(cmdline)
    const entry = kinds.get(kind) ?? {seconds: 0, count: 0}
    entry.seconds += seconds
    entry.count += 1
    kinds.set(kind, entry)
  }
  const rows = [...kinds].sort((a, b) => b[1].seconds - a[1].seconds)
  const total = rows.reduce((sum, [, entry]) => sum + entry.seconds, 0)
  console.error(`\nCPU by process (user + system, s), ${total.toFixed(1)} s in all:`)
  for (const [kind, {seconds, count}] of rows) console.error(`${seconds.toFixed(1).padStart(9)}  ${String(count).padStart(4)}  ${kind}`)
}
