/** What a whistleblower weighs before it joins or leaves the active set (amounts in wei). */
export type WhistleblowerRuleInputs = {
  /** The jackpot now, and the most one forced error pays (ProtocolConfig.jackpotCap). */
  jackpot: bigint
  jackpotCap: bigint
  /** Chance that a task is a forced error, in basis points. */
  forcedErrorBps: number
  /** Whistleblowers active now, this one included if it is. */
  active: bigint
  /** Whether this one is active. */
  isActive: boolean
  /** Its cost to re-check one task. */
  checkCost: bigint
  /** The most whistleblowers it will share the work with (the litepaper's threshold; `--max-active`). */
  maxActive: bigint
}

export type WhistleblowerDecision = {
  action: 'join' | 'leave' | 'stay' | 'stay out'
  /** Expected jackpot per re-checked task if it is (or becomes) one of the active ones: min(cap, jackpot) × rate / count. */
  expectedPayout: bigint
  reason: string
}

/** Expected jackpot per re-checked task when `count` whistleblowers share the forced errors. */
export function expectedWhistleblowerPayout(inputs: Pick<WhistleblowerRuleInputs, 'jackpot' | 'jackpotCap' | 'forcedErrorBps'>, count: bigint): bigint {
  const payout = inputs.jackpot < inputs.jackpotCap ? inputs.jackpot : inputs.jackpotCap
  return count <= 0n ? 0n : (payout * BigInt(inputs.forcedErrorBps)) / 10_000n / count
}

/**
 * The litepaper's rule for a whistleblower (docs/economics.md, "Whistleblowers"): re-checking pays the jackpot
 * × the forced-error rate, shared by the active whistleblowers, and costs a re-check. It joins when that share,
 * counting itself, covers its cost and fewer than `maxActive` are active; it leaves when its share no longer
 * covers the cost (too many others are checking) or more than `maxActive` are active.
 */
export function whistleblowerDecision(inputs: WhistleblowerRuleInputs): WhistleblowerDecision {
  const {active, isActive, checkCost, maxActive} = inputs
  if (isActive) {
    const expectedPayout = expectedWhistleblowerPayout(inputs, active)
    if (active > maxActive) return {action: 'leave', expectedPayout, reason: `${active} active, above ${maxActive}`}
    if (expectedPayout < checkCost) return {action: 'leave', expectedPayout, reason: `payout ${expectedPayout} below cost ${checkCost} with ${active} active`}
    return {action: 'stay', expectedPayout, reason: `payout ${expectedPayout} covers cost ${checkCost} with ${active} active`}
  }
  const expectedPayout = expectedWhistleblowerPayout(inputs, active + 1n)
  if (active >= maxActive) return {action: 'stay out', expectedPayout, reason: `${active} active, at most ${maxActive}`}
  if (expectedPayout < checkCost) return {action: 'stay out', expectedPayout, reason: `payout ${expectedPayout} below cost ${checkCost} with ${active + 1n} active`}
  return {action: 'join', expectedPayout, reason: `payout ${expectedPayout} covers cost ${checkCost} with ${active + 1n} active`}
}

/** How many of `available` whistleblowers the rule keeps active: the most whose shares each cover the cost. */
export function activeWhistleblowers(inputs: Pick<WhistleblowerRuleInputs, 'jackpot' | 'jackpotCap' | 'forcedErrorBps' | 'checkCost'>, available: bigint): bigint {
  let count = 0n
  while (count < available && expectedWhistleblowerPayout(inputs, count + 1n) >= inputs.checkCost) count++
  return count
}
