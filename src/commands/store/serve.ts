import path from 'node:path'

import {Flags} from '@oclif/core'

import {readDevnetConfig} from '../../chain/devnetConfig.js'
import {serveStore, type StoreRequestLog} from '../../store/index.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {withInterrupt} from '../../ui/withInterrupt.js'

export type StoreServeResult = {url: string; dir: string; requests: number}

export default class StoreServe extends BaseCommand {
  static override summary = 'Serve a blob store over HTTP, so actors on other machines share specs, checkpoints and models.'
  static override description =
    'Serves a local content-addressed store folder: GET/HEAD /blobs/<sha256 hex> read a blob, PUT /blobs/<sha256 hex> stores one (refused with 400 unless the body hashes to its name). Actors anywhere pass the printed URL as --store (or put it in the network file of `gensyn deploy --store`); they check every blob they read against its hash, so the server is not trusted with integrity. Binds 127.0.0.1 unless --host says otherwise, and has no authentication: expose it on a network you trust (docs/multi-host.md). Runs until Ctrl-C or SIGTERM; with --json, one JSON line when listening and one per request.'
  static override examples = [
    {description: 'Serve the local devnet store on port 8600 to this machine only', command: '<%= config.bin %> <%= command.id %> --port 8600'},
    {description: 'Serve a folder to the whole network', command: '<%= config.bin %> <%= command.id %> --port 8600 --dir /srv/gensyn-blobs --host 0.0.0.0'},
    {description: 'Any free port, URL and requests as JSON lines', command: '<%= config.bin %> <%= command.id %> --port 0 --json'},
  ]
  static override flags = {
    port: Flags.integer({description: 'TCP port to listen on; 0 picks a free one (printed).', min: 0, max: 65_535, default: 8600, env: 'GENSYN_STORE_PORT'}),
    dir: Flags.string({description: 'Store folder to serve (created if missing). Default: the devnet one in --state-dir, else <state-dir>/store.'}),
    host: Flags.string({description: 'Interface to bind: 127.0.0.1 (default, this machine only), 0.0.0.0 (every interface) or one address.', default: '127.0.0.1'}),
    'state-dir': Flags.string({description: 'Folder that holds devnet.json (for the default --dir).', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    'max-blob-mb': Flags.integer({description: 'Largest blob a PUT may upload, in MiB.', min: 1, default: 1024}),
  }

  async run(): Promise<StoreServeResult> {
    const {flags} = await this.parse(StoreServe)
    const dir = path.resolve(flags.dir ?? (await defaultStoreDir(flags['state-dir'])))
    let requests = 0
    const onRequest = (entry: StoreRequestLog) => {
      requests++
      if (flags.json) this.emitJsonLine({type: 'request', ...entry})
      else this.log(`${entry.method} ${entry.path} ${entry.status} ${entry.bytes} B ${entry.ms} ms`)
    }
    const server = await serveStore({dir, port: flags.port, host: flags.host, maxBlobBytes: flags['max-blob-mb'] * 1024 ** 2, onRequest})
    if (flags.json) this.emitJsonLine({type: 'listening', url: server.url, port: server.port, host: server.host, dir})
    else this.log(`serving ${dir} at ${server.url} (pass --store ${server.url} to the actors; Ctrl-C stops)`)
    await withInterrupt((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), {once: true})))
    await server.close()
    const result = {url: server.url, dir, requests}
    if (!flags.json) this.log(`stopped after ${requests} request${requests === 1 ? '' : 's'}`)
    return result
  }
}

/** The running devnet's store when there is one, so `store serve` alone shares it; else <state-dir>/store. */
async function defaultStoreDir(stateDir: string): Promise<string> {
  try {
    return (await readDevnetConfig(stateDir)).storeDir
  } catch {
    return path.join(stateDir, 'store')
  }
}
