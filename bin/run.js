#!/usr/bin/env node
import {honourNoColor} from './noColor.js'

// Before @oclif/core (and through it chalk, ansis, ink) is loaded: they read FORCE_COLOR once, on import.
const args = honourNoColor()
const {execute} = await import('@oclif/core')

await execute({args, dir: import.meta.url})
