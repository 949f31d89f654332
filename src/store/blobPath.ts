import {join} from 'node:path'

import type {Hex} from 'viem'

/** Where a store folder keeps the blob `hash`: `<root>/sha256/<first 2 hex digits>/<remaining 62>`. */
export function blobPath(root: string, hash: Hex): string {
  return join(root, 'sha256', hash.slice(2, 4), hash.slice(4))
}
