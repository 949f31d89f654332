// Reads the file timeline `test/support/fileTimeline.cjs` wrote and prints the run's wall time, for how many
// seconds 0, 1, 2, ... files were running at once (how well mocha's workers were packed), the files that ended
// last and the longest files (docs/testing.md, "Where the CPU goes").
//
//   node scripts/test-timeline.mjs /tmp/timeline.log
import {readFileSync} from 'node:fs'
import path from 'node:path'

const file = process.argv[2]
if (!file) {
  console.error('usage: node scripts/test-timeline.mjs <timeline file>')
  process.exit(2)
}

const runs = new Map() // "pid file" -> {start, end}
for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
  const [event, time, pid, ...rest] = line.split(' ')
  const key = `${pid} ${path.relative(process.cwd(), rest.join(' '))}`
  const run = runs.get(key) ?? {}
  run[event] = Number(time)
  runs.set(key, run)
}
const files = [...runs].filter(([, run]) => run.start !== undefined && run.end !== undefined)
const first = Math.min(...files.map(([, run]) => run.start))
const lastEnd = Math.max(...files.map(([, run]) => run.end))
const seconds = Math.ceil((lastEnd - first) / 1000)

const running = Array.from({length: seconds}, () => 0)
for (const [, run] of files) {
  for (let second = Math.floor((run.start - first) / 1000); second < Math.floor((run.end - first) / 1000); second++) running[second]++
}
const byConcurrency = new Map()
for (const count of running) byConcurrency.set(count, (byConcurrency.get(count) ?? 0) + 1)

console.log(`wall ${((lastEnd - first) / 1000).toFixed(1)} s, ${files.length} files, ${(files.reduce((sum, [, run]) => sum + run.end - run.start, 0) / 1000).toFixed(0)} s of file time`)
console.log(`seconds with N files running: ${[...byConcurrency].sort((a, b) => a[0] - b[0]).map(([count, total]) => `${count}: ${total}`).join(', ')}`)
console.log('longest files:')
for (const [key, run] of files.sort((a, b) => b[1].end - b[1].start - (a[1].end - a[1].start)).slice(0, 15)) {
  console.log(`${((run.end - run.start) / 1000).toFixed(1).padStart(8)} s  ${key.split(' ').slice(1).join(' ')}`)
}
