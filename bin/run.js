#!/usr/bin/env node
import {honourNoColor} from './noColor.js'
import {watchParent} from '../dist/util/parentWatch.js'

// An actor a devnet spawned stops as soon as that devnet is gone, even while it is still loading its modules.
watchParent()

// Before @oclif/core (and through it chalk, ansis, ink) is loaded: they read FORCE_COLOR once, on import.
const args = honourNoColor()
const {execute} = await import('@oclif/core')

await execute({args, dir: import.meta.url})
