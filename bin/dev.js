#!/usr/bin/env -S node --import tsx
import {honourNoColor} from './noColor.js'

// Before @oclif/core (and through it chalk, ansis, ink) is loaded: they read FORCE_COLOR once, on import.
const args = honourNoColor()
const {execute} = await import('@oclif/core')

await execute({args, development: true, dir: import.meta.url})
