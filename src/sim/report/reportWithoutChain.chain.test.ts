import assert from 'node:assert/strict'
import {mkdtemp, readFile, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {resolveDefaultScenario} from '../scenario.js'
import {reportWithoutChain} from './reportWithoutChain.js'
import {renderMarkdown} from './renderMarkdown.js'
import {writeReportFiles} from './writeReportFiles.js'

describe('reportWithoutChain: the report of a run whose chain died', () => {
  const report = reportWithoutChain({
    scenario: resolveDefaultScenario(),
    reason: 'the chain died: anvil killed by SIGKILL',
    actors: [{name: 'solver-1', role: 'solver', exit: {exitCode: 1, signal: undefined, stderrTail: ''}}],
    dropouts: [],
    crashes: [{actor: 'verifier-1', role: 'verifier', cause: 'chaos', atSeconds: 3.2, how: 'SIGKILL', restartedAfterMs: 1000}],
    seenTasks: [{taskId: '1', actor: 'solver-1', event: 'checkpoint'}],
  })

  it('fails, says it is partial and why, and never claims money was conserved', () => {
    assert.equal(report.ok, false)
    assert.deepEqual(report.failures, ['the chain died: anvil killed by SIGKILL'])
    assert.equal(report.partial?.chainRead, false)
    const markdown = renderMarkdown(report)
    assert.match(markdown, /\*\*Partial report\*\*: the chain died: anvil killed by SIGKILL\. The chain could not be read/)
    assert.match(markdown, /- Money: not checked \(the chain was gone\)\./)
    assert.doesNotMatch(markdown, /Money conserved|Money NOT conserved/)
    assert.match(markdown, /## Crashes and restarts[\s\S]*\| verifier-1 \| 3\.2 s \| chaos \| SIGKILL \| after 1 s \|/)
    assert.match(markdown, /## Tasks as the actors last reported them[\s\S]*\| 1 \| solver-1 \| checkpoint \|/)
  })

  it('is written like any report: report.json, charts and report.md', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gensyn-partial-'))
    try {
      const files = await writeReportFiles(dir, report)
      assert.deepEqual(JSON.parse(await readFile(files.json, 'utf8')), JSON.parse(JSON.stringify(report)))
      assert.ok((await readdir(path.join(dir, 'charts'))).length > 0)
      assert.match(await readFile(files.markdown, 'utf8'), /Partial report/)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
