import type {Hex} from 'viem'

/** Content-addressed blob storage: every blob is named by the sha256 of its bytes. */
export type BlobStore = {
  /** Stores bytes (idempotent) and returns their sha256. */
  put(bytes: Uint8Array): Promise<Hex>
  /** The bytes named `hash`, verified against it. Throws BlobNotFoundError / BlobIntegrityError. */
  get(hash: Hex): Promise<Uint8Array>
  has(hash: Hex): Promise<boolean>
  /** Stores the canonical JSON bytes of a value (sorted keys, no whitespace) and returns their sha256. */
  putJson(value: unknown): Promise<Hex>
  /** Parses the JSON blob named `hash` (verified like `get`). The shape is not checked: validate it. */
  getJson<T>(hash: Hex): Promise<T>
}
