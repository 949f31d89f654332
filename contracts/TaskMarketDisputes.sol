// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {WHISTLEBLOWER_ROLE} from "./RoleRegistry.sol";
import {Params} from "./ProtocolConfig.sol";
import {IPinpointGame} from "./IPinpointGame.sol";
import {TaskMarketBase} from "./TaskMarketBase.sol";

/// @title TaskMarketDisputes
/// @notice The challenge-window and reveal-window actions of TaskMarket (docs/disputes.md, lifecycle 6 and 7):
///         whistleblower challenges, the solver's dispute of a rejection, and the reveal of a forced error. Its
///         code runs only on a TaskMarket's storage: the market's functions of the same names DELEGATECALL here.
/// @dev Deployed with the market's own constructor arguments (registry, treasury, config, book), so that its
///      immutables equal the market's. A direct call (not through a market) reverts `NotDelegated`.
contract TaskMarketDisputes is TaskMarketBase {
    error NotDelegated();

    address private immutable self;

    constructor(address registry_, address treasury_, address config_, address book_)
        TaskMarketBase(registry_, treasury_, config_, book_)
    {
        self = address(this);
    }

    modifier onlyDelegated() {
        if (address(this) == self) revert NotDelegated();
        _;
    }

    /// @notice A whistleblower (WHISTLEBLOWER role, neither the solver nor the verifier) challenges an accepted
    ///         verdict: checkpoints `segment`/`segment + 1` of the committed proof are `startHash`/`endHash`
    ///         (Merkle proofs against `proofRoot`), and its own replay of the segment ends in `claimedEndHash`
    ///         (non-zero, != endHash). Locks `challengeDeposit`; queued, played at settle in order.
    function challenge(
        uint256 id,
        uint32 segment,
        bytes32 claimedEndHash,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) external onlyDelegated {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (!t.accepted) revert WrongVerdict(id, false);
        _requireRole(WHISTLEBLOWER_ROLE);
        if (msg.sender == t.solver || msg.sender == t.verifier) revert PartyCannotChallenge(id, msg.sender);
        _requireChallengeWindow(id, t);
        if (claimedEndHash == bytes32(0) || claimedEndHash == endHash) revert InvalidChallengeClaim(id);
        _checkSegment(id, t, segment, startHash, startProof, endHash, endProof);
        Params memory p = config.params();
        Challenge[] storage queue = _challenges[id];
        uint256 count = queue.length;
        for (uint256 i = 0; i < count; i++) {
            if (queue[i].whistleblower == msg.sender) revert AlreadyChallenged(id, msg.sender);
        }
        if (count >= p.maxChallengers) revert ChallengeQueueFull(id, p.maxChallengers);

        queue.push(
            Challenge({
                whistleblower: msg.sender,
                segment: segment,
                state: ChallengeState.Queued,
                outcome: IPinpointGame.Outcome.None,
                claimedEndHash: claimedEndHash,
                startHash: startHash,
                endHash: endHash,
                deposit: p.challengeDeposit,
                disputeId: 0
            })
        );
        emit ChallengeQueued(id, msg.sender, count, segment, claimedEndHash);

        registry.lock(msg.sender, p.challengeDeposit);
    }

    /// @notice The solver disputes a rejection, once: checkpoints `rejectSegment`/`rejectSegment + 1` of its
    ///         proof are `startHash`/`endHash`; the verifier's claim is the verdict's replay hash. Played at
    ///         settle.
    function disputeRejection(
        uint256 id,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) external onlyDelegated {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (t.accepted) revert WrongVerdict(id, true);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        _requireChallengeWindow(id, t);
        if (t.disputeFiled) revert DisputeAlreadyFiled(id);
        _checkSegment(id, t, t.rejectSegment, startHash, startProof, endHash, endProof);

        t.disputeFiled = true;
        t.rejectStartHash = startHash;
        t.rejectEndHash = endHash;
        emit RejectionDisputed(id, msg.sender);
    }

    /// @notice The solver reveals that its published proof was a forced error (docs/disputes.md, lifecycle 7):
    ///         the secret opens `secretHash`, the coin `keccak256(abi.encode(secret, seed)) % 10000 <
    ///         forcedErrorBps` came up, `sealedHonest` opens to (honestRoot, honestManifestHash) and the honest
    ///         root differs from the published one. Catchers (the verifier if it rejected, else the queued
    ///         whistleblowers) share `min(jackpotCap, jackpot)` by weights 2^(n-1-i); a verifier that accepted is
    ///         slashed (winner: the first catcher), one that rejected is unlocked; deposits are unlocked; the
    ///         honest proof replaces the published one and the task is Committed again for a fresh verification,
    ///         the old verifier barred. The solver keeps its stake locked and is not penalised.
    function revealForcedError(uint256 id, bytes32 secret, bytes32 honestRoot, bytes32 honestManifestHash) external onlyDelegated {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        if (t.forcedRevealed) revert AlreadyRevealed(id);
        if (block.number <= t.challengeEndBlock || block.number > t.revealEndBlock) {
            revert OutsideRevealWindow(id, t.challengeEndBlock + 1, t.revealEndBlock);
        }
        if (keccak256(abi.encode(secret)) != t.secretHash) revert InvalidSecret(id);
        if (!_isForced(secret, t.seed, t.forcedErrorBps)) revert NotForcedError(id);
        if (keccak256(abi.encode(honestRoot, honestManifestHash, secret)) != t.sealedHonest) revert SealMismatch(id);
        if (honestRoot == t.proofRoot || honestRoot == bytes32(0) || honestManifestHash == bytes32(0)) {
            revert HonestRootUnchanged(id);
        }

        address verifier = t.verifier;
        uint256 verifierLocked = t.verifierLocked;
        bool accepted = t.accepted;
        (address[] memory catchers, uint256[] memory deposits) = _catchers(id, t);
        uint256[] memory paid = _payJackpot(catchers.length);

        t.forcedRevealed = true;
        t.proofRoot = honestRoot;
        t.manifestHash = honestManifestHash;
        _bar(id, verifier);
        _backToCommitted(id, t);
        emit ForcedErrorRevealed(id, catchers, paid);

        if (accepted) _slash(id, verifier, verifierLocked, catchers.length == 0 ? address(0) : catchers[0]);
        else registry.unlock(verifier, verifierLocked);
        for (uint256 i = 0; i < deposits.length; i++) {
            if (deposits[i] != 0) registry.unlock(catchers[i], deposits[i]);
        }
        for (uint256 i = 0; i < paid.length; i++) {
            if (paid[i] != 0) registry.depositFor{value: paid[i]}(catchers[i]);
        }
    }
}
