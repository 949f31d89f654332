import {Box, Text, useInput} from 'ink'
import {useEffect, useState, useSyncExternalStore} from 'react'

import type {DashboardState} from './dashboardState.js'
import {layoutDashboard} from './layoutDashboard.js'
import type {TerminalSize} from './lines.js'

export type DashboardProps = {state: DashboardState; size: TerminalSize}

/** One frame of the dashboard: the rows layoutDashboard sized to the terminal, nothing wider or taller. */
export function Dashboard({state, size}: DashboardProps) {
  const lines = layoutDashboard(state, size)
  return (
    <Box flexDirection="column" width={Math.max(40, size.columns)}>
      {lines.map((line, row) => (
        <Text key={row} wrap="truncate">
          {line.map((segment, index) => {
            const {text, ...style} = segment
            return (
              <Text key={index} {...style}>
                {text}
              </Text>
            )
          })}
        </Text>
      ))}
    </Box>
  )
}

/** What the live dashboard reads and whom it tells about the keys. */
export type DashboardStore = {
  getState(): DashboardState
  /** A counter that changes on every update, so React knows when to render again. */
  getVersion(): number
  subscribe(listener: () => void): () => void
}

export type DashboardKeys = {
  onQuit(): void
  onTogglePause(): void
  /** n or Tab: the next of several things running (a sweep's cells). */
  onNext?: (() => void) | undefined
}

export type LiveDashboardProps = {
  store: DashboardStore
  keys: DashboardKeys
  /** Where the terminal's size and its resize events come from. */
  stdout: Pick<NodeJS.WriteStream, 'columns' | 'rows' | 'on' | 'off'>
}

/** The dashboard wired to a changing state, the terminal's size and the keyboard (q / Ctrl-C quit, p pauses, n next). */
export function LiveDashboard({store, keys, stdout}: LiveDashboardProps) {
  useSyncExternalStore(store.subscribe, store.getVersion)
  const [size, setSize] = useState<TerminalSize>({columns: stdout.columns || 80, rows: stdout.rows || 24})
  useEffect(() => {
    const onResize = () => setSize({columns: stdout.columns || 80, rows: stdout.rows || 24})
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
  }, [stdout])
  useInput((input, key) => {
    if (input === 'q' || input === 'Q' || (key.ctrl && input === 'c')) keys.onQuit()
    else if (input === 'p' || input === 'P') keys.onTogglePause()
    else if (input === 'n' || input === 'N' || key.tab) keys.onNext?.()
  })
  return <Dashboard state={store.getState()} size={size} />
}
