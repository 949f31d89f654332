#!/usr/bin/env -S node --import tsx
import {honourNoColor} from './noColor.js'
import {watchParent} from '../src/util/parentWatch.ts'

// An actor a devnet spawned stops as soon as that devnet is gone, even while it is still loading its modules.
watchParent()

// Before @oclif/core (and through it chalk, ansis, ink) is loaded: they read FORCE_COLOR once, on import.
const args = honourNoColor()
const {execute} = await import('@oclif/core')

await execute({args, development: true, dir: import.meta.url})
