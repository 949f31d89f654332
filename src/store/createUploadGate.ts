import {StoreRequestRejectedError} from './errors.js'

export type UploadGateLimits = {
  /** Uploads received at once; one more is answered 429. */
  maxUploads: number
  /** Bytes the store may hold, blobs already there included; undefined: only the disk limits it. */
  maxStoreBytes: number | undefined
  /** Bytes the store holds when the server starts. */
  storedBytes: number
}

/** One admitted upload: report its bytes as they arrive, then `finish` (stored) or `release` (dropped). */
export type UploadTicket = {
  /** Counts bytes received; throws a 507 rejection once they would take the store past its limit. */
  received(bytes: number): void
  /** The blob is in place: `added` bytes more are stored (0 for a blob that was already there). */
  finish(added: number): void
  /** Frees the upload's slot and reservation; safe to call twice and after `finish`. */
  release(): void
}

export type UploadGate = {
  /**
   * Admits an upload or throws a 429 (too many at once) or 507 (no room for `declaredBytes`) rejection.
   * `replacing` marks the re-upload of a blob already stored at that size: it adds nothing, so a full store
   * still accepts it (actors re-put blobs they already published, and must not fail for it).
   */
  admit(declaredBytes: number | undefined, replacing: boolean): UploadTicket
  /** Bytes stored now (blobs in place, not uploads in flight). */
  storedBytes(): number
  /** Uploads in flight now. */
  activeUploads(): number
}

/**
 * Bounds what uploads may take: how many run at once and how many bytes the store may hold. Bytes in flight
 * count against the limit as they arrive, so many concurrent uploads cannot each pass the check alone and
 * together overfill the store.
 */
export function createUploadGate(limits: UploadGateLimits): UploadGate {
  let active = 0
  let inFlight = 0
  let stored = limits.storedBytes
  const full = (more: number) => limits.maxStoreBytes !== undefined && stored + inFlight + more > limits.maxStoreBytes
  const fullError = () =>
    new StoreRequestRejectedError(507, `the store is full: it holds ${stored} bytes (${inFlight} more in flight) of its ${limits.maxStoreBytes} byte limit (store serve --max-store-mb)`)

  function admit(declaredBytes: number | undefined, replacing: boolean): UploadTicket {
    if (active >= limits.maxUploads) {
      throw new StoreRequestRejectedError(429, `too many uploads at once (the limit is ${limits.maxUploads}, store serve --max-uploads); try again shortly`, 1)
    }
    if (!replacing && full(declaredBytes ?? 0)) throw fullError()
    active++
    let counted = 0
    let open = true
    const release = () => {
      if (!open) return
      open = false
      active--
      inFlight -= counted
    }
    return {
      received(bytes) {
        if (!replacing && full(bytes)) throw fullError()
        counted += bytes
        inFlight += bytes
      },
      finish(added) {
        release()
        stored += added
      },
      release,
    }
  }

  return {admit, storedBytes: () => stored, activeUploads: () => active}
}
