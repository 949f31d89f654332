import {encodeAbiParameters, type Hex, keccak256} from 'viem'

/** What the solver commits to at its claim: keccak256 of its 32-byte secret (the word itself, as abi.encode gives it). */
export function secretHashOf(secret: Hex): Hex {
  return keccak256(secret)
}

/**
 * The forced-error coin (docs/disputes.md, "Task lifecycle", 2), as `TaskMarket.forcedErrorOf` computes it:
 * uint256(keccak256(abi.encode(secret, seed))) % 10000 < forcedErrorBps, seed = blockhash(claimBlock + 1).
 */
export function forcedErrorCoin({secret, seed, forcedErrorBps}: {secret: Hex; seed: Hex; forcedErrorBps: number}): boolean {
  const word = BigInt(keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}], [secret, seed])))
  return word % 10_000n < BigInt(forcedErrorBps)
}

/** keccak256(abi.encode(honestRoot, honestManifestHash, secret)): commits the honest proof behind a forced error. */
export function sealHonest({honestRoot, honestManifestHash, secret}: {honestRoot: Hex; honestManifestHash: Hex; secret: Hex}): Hex {
  return keccak256(encodeAbiParameters([{type: 'bytes32'}, {type: 'bytes32'}, {type: 'bytes32'}], [honestRoot, honestManifestHash, secret]))
}
