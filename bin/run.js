#!/usr/bin/env node
import {honourNoColor} from './noColor.js'
import {watchParent} from '../dist/util/parentWatch.js'

// An actor a devnet spawned stops as soon as that devnet is gone, even while it is still loading its modules.
watchParent()

// Before @oclif/core (and through it chalk, ansis, ink) is loaded: they read FORCE_COLOR once, on import.
const args = honourNoColor()
// oclif from the CLI bundle (scripts/bundle-cli.mjs), the same copy its commands extend
const {execute} = await import('../dist/cli/oclif.js')

await execute({args, dir: import.meta.url})
