import {randomBytes} from 'node:crypto'
import path from 'node:path'

import {Flags} from '@oclif/core'

import {readDevnetConfig} from '../../chain/devnetConfig.js'
import {parseStoreToken, serveStore, type StoreRequestLog} from '../../store/index.js'
import {BaseCommand} from '../../ui/baseCommand.js'
import {withInterrupt} from '../../ui/withInterrupt.js'

export type StoreServeResult = {
  url: string
  dir: string
  requests: number
  /** Requests by the status they were answered with, e.g. {"201": 12, "401": 1}. */
  statuses: Record<string, number>
  /** Bytes of blobs the store held when the server stopped. */
  storedBytes: number
}

export default class StoreServe extends BaseCommand {
  static override summary = 'Serve a blob store over HTTP, so actors on other machines share specs, checkpoints and models.'
  static override description =
    'Serves a local content-addressed store folder: GET/HEAD /blobs/<sha256 hex> read a blob and need nothing, PUT /blobs/<sha256 hex> stores one and needs the upload token (authorization: Bearer <token>). A PUT streams to a temporary file while it is hashed and is kept only if it hashes to its name (else 400); memory stays bounded whatever the size and number of uploads. Past the limits a PUT is refused with one line: 401 without the token, 413 past --max-blob-mb, 429 past --max-uploads at once, 507 past --max-store-mb. The token is --token (or GENSYN_STORE_TOKEN); without one a random token is made and printed once. Actors pass it as --store-token (or GENSYN_STORE_TOKEN, or the network file of `gensyn deploy --store-token`), and the printed URL as --store; they check every blob they read against its hash, so the server is not trusted with integrity. Binds 127.0.0.1 unless --host says otherwise; there is no TLS, so put it behind a TLS proxy to cross an untrusted network (docs/multi-host.md). Runs until Ctrl-C or SIGTERM; with --json, one JSON line when listening, one per request, and a summary.'
  static override examples = [
    {description: 'Serve the local devnet store on port 8600 to this machine only, with a generated token', command: '<%= config.bin %> <%= command.id %> --port 8600'},
    {description: 'Serve a folder to the whole network with a token of your own, at most 200 GiB of blobs', command: 'GENSYN_STORE_TOKEN=$(openssl rand -hex 24) <%= config.bin %> <%= command.id %> --port 8600 --dir /srv/gensyn-blobs --host 0.0.0.0 --max-store-mb 204800'},
    {description: 'Any free port; URL, token and requests as JSON lines', command: '<%= config.bin %> <%= command.id %> --port 0 --json'},
  ]
  static override flags = {
    port: Flags.integer({description: 'TCP port to listen on; 0 picks a free one (printed).', min: 0, max: 65_535, default: 8600, env: 'GENSYN_STORE_PORT'}),
    dir: Flags.string({description: 'Store folder to serve (created if missing). Default: the devnet one in --state-dir, else <state-dir>/store.'}),
    host: Flags.string({description: 'Interface to bind: 127.0.0.1 (default, this machine only), 0.0.0.0 (every interface) or one address.', default: '127.0.0.1'}),
    'state-dir': Flags.string({description: 'Folder that holds devnet.json (for the default --dir).', default: '.gensyn', env: 'GENSYN_STATE_DIR'}),
    token: Flags.string({description: 'Secret every PUT must carry (16 to 512 printable ASCII characters). Default: a random one, printed once.', env: 'GENSYN_STORE_TOKEN'}),
    'max-blob-mb': Flags.integer({description: 'Largest blob a PUT may upload, in MiB (413 past it).', min: 1, default: 1024}),
    'max-uploads': Flags.integer({description: 'Uploads received at once (429 with retry-after past it).', min: 1, default: 32}),
    'max-store-mb': Flags.integer({description: 'Bytes of blobs the store may hold, in MiB, what it holds already included (507 past it). Default: only the disk limits it.', min: 1}),
  }

  async run(): Promise<StoreServeResult> {
    const {flags} = await this.parse(StoreServe)
    const dir = path.resolve(flags.dir ?? (await defaultStoreDir(flags['state-dir'])))
    const generated = flags.token === undefined
    const token = flags.token === undefined ? randomBytes(24).toString('hex') : parseStoreToken(flags.token, '--token')
    const statuses: Record<string, number> = {}
    let requests = 0
    const onRequest = (entry: StoreRequestLog) => {
      requests++
      statuses[entry.status] = (statuses[entry.status] ?? 0) + 1
      if (flags.json) this.emitJsonLine({type: 'request', ...entry})
      else this.log(`${entry.method} ${entry.path} ${entry.status} ${entry.bytes} B ${entry.ms} ms`)
    }
    const limits = {maxBlobBytes: flags['max-blob-mb'] * 1024 ** 2, maxUploads: flags['max-uploads'], maxStoreBytes: flags['max-store-mb'] === undefined ? undefined : flags['max-store-mb'] * 1024 ** 2}
    const server = await serveStore({dir, port: flags.port, host: flags.host, token, ...limits, onRequest})
    if (flags.json) {
      // The token only when made here: one given by flag or environment is already known to whoever started this.
      this.emitJsonLine({type: 'listening', url: server.url, port: server.port, host: server.host, dir, ...(generated ? {token} : {}), tokenGenerated: generated, ...limits, maxStoreBytes: limits.maxStoreBytes ?? null, storedBytes: server.storedBytes()})
    } else {
      this.log(`serving ${dir} at ${server.url} (pass --store ${server.url} to the actors; Ctrl-C stops)`)
      if (generated) this.log(`uploads need this token, made for this run: ${token} (actors: --store-token or GENSYN_STORE_TOKEN; gensyn deploy --store-token)`)
      else this.log('uploads need the token given by --token or GENSYN_STORE_TOKEN')
      this.log(`limits: blobs up to ${flags['max-blob-mb']} MiB, ${limits.maxUploads} uploads at once, ${flags['max-store-mb'] === undefined ? 'no cap on stored bytes but the disk' : `${flags['max-store-mb']} MiB stored`} (${server.storedBytes()} bytes stored now)`)
    }
    await withInterrupt((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), {once: true})))
    await server.close()
    const result = {url: server.url, dir, requests, statuses, storedBytes: server.storedBytes()}
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
