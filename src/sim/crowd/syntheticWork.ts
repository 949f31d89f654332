import {encodeAbiParameters, type Hex, keccak256} from 'viem'

/**
 * A crowd's synthetic training (docs/scenarios.md, "Crowds"): the state after step t + 1 is the hash of the state
 * after step t and t, from a start the spec hash fixes. Like wasm training it is bit-for-bit repeatable, so a
 * verifier replays a segment from its committed start and compares ends, and a whistleblower can post the state at
 * any step of a dispute's bisection. What it costs is declared (the crowd's stepMs), not spent.
 */
export function startState(specHash: Hex): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'string'}], [specHash, 'synthetic start']))
}

export function nextState(state: Hex, step: number): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'uint64'}], [state, BigInt(step)]))
}

/** The state after `toStep` replayed from `state`, the state after `fromStep`. */
export function replaySteps(state: Hex, fromStep: number, toStep: number): Hex {
  let current = state
  for (let step = fromStep; step < toStep; step++) current = nextState(current, step)
  return current
}

/**
 * Every state of a task's run, steps 0..steps. A cheater's run goes wrong once, after step `wrongAfter`: from there
 * on it continues honestly from the wrong state, so exactly one segment fails a replay.
 */
export function syntheticStates(specHash: Hex, steps: number, wrongAfter?: number): Hex[] {
  const states = [startState(specHash)]
  for (let step = 0; step < steps; step++) {
    const next = nextState(states[step]!, step)
    states.push(step === wrongAfter ? keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'string'}], [next, 'wrong'])) : next)
  }
  return states
}

/** The proof's checkpoints: the states after steps 0, interval, 2 * interval, ... and the last step. */
export function checkpointsOf(states: readonly Hex[], interval: number): {step: number; hash: Hex}[] {
  const steps = states.length - 1
  const checkpoints: {step: number; hash: Hex}[] = []
  for (let step = 0; step < steps; step += interval) checkpoints.push({step, hash: states[step]!})
  checkpoints.push({step: steps, hash: states[steps]!})
  return checkpoints
}

/** Segment s's replay from its committed start: the end hash an honest run reaches. */
export function replaySegment(checkpoints: readonly {step: number; hash: Hex}[], segment: number): Hex {
  const start = checkpoints[segment]!
  return replaySteps(start.hash, start.step, checkpoints[segment + 1]!.step)
}

/** The first of `segments` whose replay does not reach the committed end, with the end the replay reached. */
export function firstWrongSegment(checkpoints: readonly {step: number; hash: Hex}[], segments: readonly number[]): {segment: number; replayHash: Hex} | undefined {
  for (const segment of [...segments].sort((a, b) => a - b)) {
    const replayHash = replaySegment(checkpoints, segment)
    if (replayHash !== checkpoints[segment + 1]!.hash) return {segment, replayHash}
  }
  return undefined
}

export type SyntheticManifest = {kind: 'synthetic-proof'; specHash: Hex; checkpoints: {step: number; hash: Hex}[]}
