import {type Address, concat, encodeAbiParameters, type Hex, hexToBigInt, hexToBytes, keccak256, numberToHex, size, sliceHex, toHex} from 'viem'

import {taskMarketAbi} from '../chain/generated/index.js'
import type {SignedConnection} from './connect.js'
import {toProtocolError} from './errors.js'
import type {Task} from './types.js'
import {getLogsPaged} from '../chain/getLogsPaged.js'

/** What a whistleblower claims of an accepted proof: its own replay of `segment` ends in `claimedEndHash`. */
export type ChallengeClaim = {segment: number; claimedEndHash: Hex}

type Attempt = Pick<Task, 'id' | 'verdictBlock'>

/**
 * The salt of the caller's challenge of this verdict: the hash of its signature over the verdict's coordinates.
 * Signatures are deterministic (RFC 6979), so a restarted whistleblower derives the same salt with nothing saved,
 * and nobody without its key can.
 */
export async function challengeSalt(connection: Pick<SignedConnection, 'account' | 'contracts' | 'publicClient'>, task: Attempt): Promise<Hex> {
  const chainId = await connection.publicClient.getChainId()
  const message = `gensyn challenge salt v1\nchain ${chainId}\nmarket ${connection.contracts.market}\ntask ${task.id}\nverdict ${task.verdictBlock}`
  return keccak256(await connection.account.signMessage({message}))
}

/** `TaskMarket.commitChallenge`'s commitment: keccak256(abi.encode(id, whistleblower, segment, claimedEndHash, salt)). */
export function challengeCommitment(taskId: bigint, whistleblower: Address, claim: ChallengeClaim, salt: Hex): Hex {
  return keccak256(
    encodeAbiParameters(
      [{type: 'uint256'}, {type: 'address'}, {type: 'uint32'}, {type: 'bytes32'}, {type: 'bytes32'}],
      [taskId, whistleblower, claim.segment, claim.claimedEndHash, salt],
    ),
  )
}

const CLAIM_BYTES = 36

/** keccak256 in counter mode over the salt: the pad that seals a claim for its own whistleblower. */
function pad(salt: Hex): Uint8Array {
  const blocks = [0, 1].map((counter) => keccak256(concat([salt, toHex('seal'), numberToHex(counter, {size: 1})]), 'bytes'))
  return new Uint8Array([...blocks[0]!, ...blocks[1]!]).slice(0, CLAIM_BYTES)
}

function xor(bytes: Uint8Array, key: Uint8Array): Hex {
  return toHex(bytes.map((byte, index) => byte ^ key[index]!))
}

/** The claim (4-byte segment, 32-byte end hash) xor-ed with the salt's pad: logged with the commitment. */
export function sealClaim(claim: ChallengeClaim, salt: Hex): Hex {
  const plain = concat([numberToHex(claim.segment, {size: 4}), claim.claimedEndHash])
  return xor(hexToBytes(plain), pad(salt))
}

export function unsealClaim(sealed: Hex, salt: Hex): ChallengeClaim | undefined {
  if (size(sealed) !== CLAIM_BYTES) return undefined
  const plain = xor(hexToBytes(sealed), pad(salt))
  return {segment: Number(hexToBigInt(sliceHex(plain, 0, 4))), claimedEndHash: sliceHex(plain, 4, CLAIM_BYTES)}
}

/**
 * The claim the caller committed to on this verdict, read back from its `ChallengeCommitted` log and unsealed
 * (undefined when it committed none, or the seal does not open to its commitment).
 */
export async function readCommittedClaim(connection: SignedConnection, task: Attempt): Promise<ChallengeClaim | undefined> {
  const me = connection.account.address
  let logs
  try {
    logs = await getLogsPaged(connection.publicClient, {fromBlock: task.verdictBlock}, (range) => connection.publicClient.getContractEvents({
      address: connection.contracts.market,
      abi: taskMarketAbi,
      eventName: 'ChallengeCommitted',
      args: {id: task.id, whistleblower: me},
      ...range,
    }))
  } catch (error) {
    throw toProtocolError('ChallengeCommitted', error)
  }
  const log = logs.at(-1)
  if (!log) return undefined
  const salt = await challengeSalt(connection, task)
  const claim = unsealClaim(log.args.sealedClaim!, salt)
  return claim && challengeCommitment(task.id, me, claim, salt) === log.args.commitment ? claim : undefined
}
