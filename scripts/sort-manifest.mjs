// `oclif manifest` lists commands in the order the file system returns them, which differs between machines, so a
// build rewrote the committed oclif.manifest.json. Sorting the commands by id makes the file a function of the
// sources alone (inside a command the order is the class's own: flags and args keep it, as help shows them).
import {readFileSync, writeFileSync} from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)

const manifest = JSON.parse(readFileSync(file, 'utf8'))
manifest.commands = Object.fromEntries(Object.keys(manifest.commands).sort().map((id) => [id, manifest.commands[id]]))
writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n')
