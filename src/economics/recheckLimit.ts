/** A whistleblower re-checks a proof of at most this many segments whole; a longer one in `segmentsToCheck` random segments. */
export const checkEveryRecheckSegmentUpTo = 8
