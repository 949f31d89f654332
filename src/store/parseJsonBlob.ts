import type {Hex} from 'viem'

import {BlobJsonError} from './errors.js'

/** The JSON value in a blob's bytes (strict UTF-8); every store's getJson reads its blobs through this. */
export function parseJsonBlob<T>(hash: Hex, bytes: Uint8Array): T {
  try {
    return JSON.parse(new TextDecoder('utf-8', {fatal: true}).decode(bytes)) as T
  } catch (error) {
    throw new BlobJsonError(`blob ${hash}: expected JSON, got unparseable bytes`, {cause: error})
  }
}
