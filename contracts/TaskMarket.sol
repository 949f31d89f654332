// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SOLVER_ROLE, VERIFIER_ROLE} from "./RoleRegistry.sol";
import {IPinpointGame} from "./IPinpointGame.sol";
import {SolverBook} from "./SolverBook.sol";
import {MAX_TASK_STEPS} from "./ProtocolConfig.sol";
import {TaskMarketBase} from "./TaskMarketBase.sol";

/// @title TaskMarket
/// @notice The life of a training task (docs/disputes.md, docs/market.md): submission of its estimated work
///         with escrow at the submitter's maximum price, a solver's claim at the SolverBook's posted price (with a
///         committed secret for the forced-error coin) and proof commitment (stacked on its parent's final
///         checkpoint for a split job's later task), a verifier's claim and verdict, a challenge window
///         (whistleblowers commit to challenges, the solver disputes a rejection), an open window (the committed
///         challenges are opened), a reveal window (forced errors, paid from the jackpot), the disputes played in the PinpointGame, and settlement, reopening (a rejection, a
///         wrong proof, a training timeout) or expiry.
/// @dev Money. The market holds escrow, the jackpot and the credits not yet withdrawn (ether): invariant balance ==
///      totalEscrow + jackpot + totalCredit (no receive/fallback, so plain transfers revert). `totalEscrow` is the escrow of every live task (not
///      Settled or Expired). The escrow is at least ceil(workUnits * maxPrice * (10000 + verifierFeeBps) /
///      10000); the claim fixes `price <= maxPrice`, the commit sets `solverReward = price * workUnits *
///      totalSteps / maxSteps` and `verifierReward = solverReward * verifierFeeBps / 10000`, and every wei the
///      escrow does not pay out goes back to the submitter (TaskSettled.refunded, TaskExpired.refunded; a
///      rejection's fee shortfall is TaskRejected.fromEscrow). The registry holds stakes; every slash goes
///      through `_slash` (winner, treasury and burned shares of ProtocolConfig). Stake amounts are snapshotted
///      into the task when locked (`solverLocked`, `verifierLocked`, each challenge's `deposit`).
///
///      The SolverBook is told of every task's moves (submit, claim, release when a claim ends: done on
///      settlement or expiry, back to the pool on a reopening; cancel when an unclaimed task expires), so its
///      demand counts exactly the tasks Submitted to Verified.
///
///      Deadlines. The stages before the verdict have one deadline in seconds, `Task.deadline` (an action is
///      allowed while `block.timestamp <= deadline`, `expire` once it is past), from timeouts snapshotted at the
///      submission (ProtocolConfig.marketParams()):
///      Submitted: submission (or reopening) + claimTimeout; Claimed: claim + trainingTimeout (trainingBaseSeconds
///      + ceil(workUnits / minWorkUnitsPerSecond)); Committed: commit + verificationTimeout; Verifying: the
///      verifier's claim + verificationTimeout. A task with a parent can be claimed only once the parent is
///      Settled with its whole range, and until max(deadline, parent's settlement + claimTimeout); it cannot
///      expire while the parent is live, and expires at once when the parent expired or stopped early.
///      After the verdict the windows are block counts snapshotted at the verdict: challenge commitments and
///      rejection disputes while `block.number <= challengeEndBlock`, openings of the commitments in
///      `(challengeEndBlock, openEndBlock]`, forced-error reveals in `(openEndBlock, revealEndBlock]`, `settle`
///      after `revealEndBlock`. `deadline` is unused while
///      Verified, and is the settlement time once Settled.
///
///      Payments (fees, refunds, a rejection's shortfall) are credited, never pushed: each recipient withdraws its
///      credit with `withdraw(to)`, so a recipient that rejects ether (a contract without `receive`, one that
///      reverts on purpose) blocks only its own withdrawal, never a settlement, an expiry or anyone's stake.
///      Jackpot shares are paid into the catchers' registry stake (`depositFor`), so no catcher can block a reveal.
///
///      State. A task lives in no storage slot but one hash (TaskMarketBase, `Task`; docs/market.md, "What a task
///      stores"): every function on a task takes `state`, the 15 words of its last TaskState event (with the parent's
///      15 after them where the call needs the parent), and reverts `StaleTask` for any other.
contract TaskMarket is TaskMarketBase {
    /// @notice The code of the actions off the honest path: the challenge-, open- and reveal-window actions
    ///         (commitChallenge, openChallenge, disputeRejection, revealForcedError) and expire, run on this market's storage: the same rules in a second contract, so that each
    ///         stays under the EIP-170 code size limit.
    address public immutable disputes;

    /// @param disputes_ a TaskMarketDisputes deployed by this market's deployer with the same registry, treasury,
    ///        config and book (checked: its code runs with its own immutables, `owner` included).
    constructor(address registry_, address treasury_, address config_, address book_, address disputes_)
        TaskMarketBase(registry_, treasury_, config_, book_)
    {
        if (disputes_ == address(0)) revert ZeroAddress();
        TaskMarketBase d = TaskMarketBase(disputes_);
        if (
            address(d.registry()) != registry_ || d.treasury() != treasury_ || address(d.config()) != config_
                || address(d.book()) != book_ || d.owner() != msg.sender
        ) revert DisputesMismatch(disputes_);
        disputes = disputes_;
    }

    /// @notice Names the dispute game (its opener must be this market). Owner only, once.
    /// @dev Runs TaskMarketDisputes.setGame on this market's storage (its `owner` is this market's: checked by the
    ///      constructor).
    function setGame(address) external {
        _delegate();
    }

    /// @notice Adds the ether sent to the jackpot (anyone).
    /// @dev Runs TaskMarketDisputes.fundJackpot on this market's storage (off the task path: it keeps this
    ///      contract under the EIP-170 code size limit).
    function fundJackpot() external payable {
        _delegate();
    }

    /// @notice Sends the caller's whole credit (fees, refunds, shortfalls credited to it) to `to`. A caller that
    ///         cannot take ether itself names another address.
    /// @dev Runs TaskMarketDisputes.withdraw on this market's storage (like fundJackpot).
    function withdraw(address) external {
        _delegate();
    }

    // ---------------------------------------------------------------- submission and training

    /// @notice Posts a task of `workUnits` (the estimate of docs/market.md, section 1) over `maxSteps` steps, paying
    ///         at most `maxPrice` wei per work unit; the ether sent is its escrow, at least the SolverBook's terms
    ///         (ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000)), and what is not paid out is
    ///         refunded. `parentId` (0: none) names an earlier task of the same submitter whose final checkpoint
    ///         this one starts from. The timeouts and the verifier fee of the current parameters are snapshotted.
    ///         Task ids start at 1.
    function submitTask(
        bytes32 specHash,
        uint64 workUnits,
        uint64 maxSteps,
        uint256 maxPrice,
        uint256 parentId,
        bytes32[] calldata parentState
    ) external payable returns (uint256 id) {
        if (specHash == bytes32(0)) revert ZeroSpecHash();
        if (parentId != 0 && _open(parentId, parentState).submitter != msg.sender) revert ForeignParent(parentId, msg.sender);
        SolverBook.Terms memory terms = book.onSubmit(workUnits, maxSteps, maxPrice, parentId != 0);
        if (msg.value < terms.escrow) revert InsufficientEscrow(msg.value, terms.escrow);

        id = ++taskCount;
        Task memory t;
        t.submitter = msg.sender;
        t.status = Status.Submitted;
        uint128 escrow = _u128(msg.value);
        t.escrow = escrow;
        t.workUnits = workUnits;
        t.maxSteps = maxSteps;
        t.verifierFeeBps = terms.verifierFeeBps;
        t.demandWeight = terms.demandWeight;
        t.maxPrice = _u128(maxPrice);
        // No truncation: a parent is an existing task (checked above), and ids are counted one by one.
        t.parentId = uint64(parentId);
        // No truncation: the book bounds every timeout by MAX_TIMEOUT (365 days < 2^32 seconds).
        t.claimTimeout = uint32(terms.claimTimeout);
        t.trainingTimeout = uint32(terms.trainingTimeout);
        t.verificationTimeout = uint32(terms.verificationTimeout);
        t.submittedAt = uint64(block.timestamp);
        t.deadline = _after(terms.claimTimeout);
        totalEscrow += escrow;
        _save(id, t);

        emit TaskSubmitted(id, msg.sender, specHash, msg.value, workUnits, maxSteps, maxPrice, parentId);
    }

    /// @notice A registered solver takes an open task at the SolverBook's price of this block (fixed for the
    ///         attempt: the solver must be listed, below its capacity, ask at most the price, and the price must be
    ///         at most `maxPrice`), commits to a secret (`secretHash = keccak256(abi.encode(secret))`) and locks
    ///         `solverStake`. The rewards are set for the whole range (the commit recomputes them for the steps
    ///         trained). A solver once rejected on this task cannot claim it again (`SolverRejected`); a task whose
    ///         escrow (less a rejection's shortfall) no longer covers both rewards cannot be claimed
    ///         (`EscrowExhausted`); a task with a parent needs the parent Settled with its whole range.
    function claimTask(uint256 id, bytes32[] calldata state, bytes32 secretHash) external {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Submitted);
        _requireRole(SOLVER_ROLE);
        if (t.attempts != 0 && _rejected[id][msg.sender]) revert SolverRejected(id, msg.sender);
        {
            Task memory parent = _openParent(t, state);
            if (t.parentId != 0) {
                if (parent.status != Status.Settled) revert ParentNotSettled(id, t.parentId);
                if (parent.totalSteps != parent.maxSteps) revert ParentStoppedEarly(id, t.parentId);
            }
            uint64 deadline = _claimDeadline(t, parent);
            if (block.timestamp > deadline) revert DeadlinePassed(id, deadline);
        }
        (uint256 price, uint16 weight) = book.onClaim(msg.sender, t.maxPrice, t.workUnits, t.demandWeight);
        if (weight != t.demandWeight) t.demandWeight = weight;
        // No overflow: price <= maxPrice, and workUnits * maxPrice is below the escrow paid at submission.
        uint256 solverReward = price * t.workUnits;
        uint256 verifierReward = solverReward * t.verifierFeeBps / BPS;
        if (t.escrow < solverReward + verifierReward) revert EscrowExhausted(id, t.escrow, solverReward + verifierReward);
        (uint256 stake, uint16 forcedErrorBps) = config.claimParams();

        t.solver = msg.sender;
        t.status = Status.Claimed;
        t.deadline = _after(t.trainingTimeout);
        t.secretHash = secretHash;
        t.claimBlock = uint40(block.number);
        t.forcedErrorBps = forcedErrorBps;
        t.solverLocked = _u96(stake);
        // No truncation: price <= maxPrice, which fits 128 bits (submitTask).
        t.price = uint128(price);
        _save(id, t);
        emit TaskClaimed(id, msg.sender, secretHash, stake, price);

        registry.lock(msg.sender, stake);
    }

    /// @notice The solver commits to its proof of learning and its schedule: checkpoint `s` is the state after
    ///         step `min(s * checkpointInterval, totalSteps)` of the task's range, so `checkpointCount ==
    ///         ceil(totalSteps / checkpointInterval) + 1`, and `totalSteps <= maxSteps` (fewer: the job stopped
    ///         early, docs/market.md section 2; the rewards become `price * workUnits * totalSteps / maxSteps` and
    ///         its fee share). `sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash, secret))` seals
    ///         the honest proof for a forced-error reveal. A task with a parent stacks on it: `start.proof` proves
    ///         that checkpoint 0 of this proof is `start.checkpoint`, and `start.parentFinalProof` that the parent's last
    ///         checkpoint is the same (both ignored without a parent). Needs `block.number > claimBlock + 1`: the
    ///         seed `blockhash(claimBlock + 1)` is fixed here unless `fixSeed` recorded it; a commit more than 256
    ///         blocks after that block without a recorded seed reverts `RandomnessExpired` (docs/security.md).
    function commitProof(
        uint256 id,
        bytes32[] calldata state,
        bytes32 proofRoot,
        bytes32 manifestHash,
        uint32 checkpointCount,
        uint64 checkpointInterval,
        uint64 totalSteps,
        bytes32 sealedHonest,
        Start calldata start
    ) external {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Claimed);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        _requireBeforeDeadline(id, t);
        if (proofRoot == bytes32(0) || manifestHash == bytes32(0)) revert ZeroProofRoot();
        if (
            checkpointInterval == 0 || totalSteps == 0 || totalSteps > t.maxSteps
                || checkpointInterval > MAX_TASK_STEPS || checkpointCount != (uint256(totalSteps) + checkpointInterval - 1) / checkpointInterval + 1
        ) revert InvalidSchedule(checkpointCount, checkpointInterval, totalSteps);
        t.proofRoot = proofRoot;
        t.checkpointCount = checkpointCount;
        if (t.parentId != 0) _checkStart(id, t, _openParent(t, state), start);
        bytes32 seed = _seed(id, t);

        t.status = Status.Committed;
        t.checkpointInterval = uint40(checkpointInterval);
        t.totalSteps = uint40(totalSteps);
        t.secretHash = _coinCommitment(t.secretHash, seed, sealedHonest);
        t.commitBlock = uint40(block.number);
        t.deadline = _after(t.verificationTimeout);
        _save(id, t);
        emit ProofCommitted(id, proofRoot, manifestHash, checkpointCount, checkpointInterval, totalSteps, seed, sealedHonest);
    }

    // ---------------------------------------------------------------- verification

    /// @notice A registered verifier (not the solver, not barred on this task) takes a committed task, locks
    ///         `verifierStake`, and fixes the randomness that picks the segments to replay:
    ///         `blockhash(commitBlock + 1)` (so `block.number > commitBlock + 1` is needed). Past the EVM's
    ///         256-block window it reverts `RandomnessExpired`; `renewRandomness` then moves the anchor to a block
    ///         nobody could know in advance.
    function claimVerification(uint256 id, bytes32[] calldata state) external {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Committed);
        _requireRole(VERIFIER_ROLE);
        if (msg.sender == t.solver) revert SolverCannotVerify(id);
        if (_barred[id][msg.sender]) revert VerifierBarred(id, msg.sender);
        _requireBeforeDeadline(id, t);
        bytes32 randomness = _hashOfNextBlock(id, t.commitBlock);
        uint256 stake = config.verifierStake();

        t.verifier = msg.sender;
        t.status = Status.Verifying;
        t.verifierLocked = _u96(stake);
        // The verifier gets a full verificationTimeout to replay and post its verdict.
        t.deadline = _after(t.verificationTimeout);
        _save(id, t);
        emit VerificationClaimed(id, msg.sender, randomness, stake);

        registry.lock(msg.sender, stake);
    }

    /// @notice Anyone re-anchors the verification randomness of a Committed task whose `blockhash(commitBlock + 1)`
    ///         the EVM has forgotten (nobody claimed it within 256 blocks): the anchor becomes this block, so the
    ///         draw is the hash of the next one, unknown to the caller. A re-roll is possible only once per 257
    ///         blocks and only before the verification deadline (then the task expires).
    /// @dev Runs TaskMarketDisputes.renewRandomness on this market's storage (off the honest path).
    function renewRandomness(uint256, bytes32[] calldata) external {
        _delegate();
    }

    /// @notice Anyone records the forced-error seed of a Claimed task, `blockhash(claimBlock + 1)`, while the EVM
    ///         still returns it (from block claimBlock + 2 to claimBlock + 257). A solver whose training outlasts
    ///         that window calls it before; commitProof records it otherwise.
    /// @dev Runs TaskMarketDisputes.fixSeed on this market's storage (off the honest path).
    function fixSeed(uint256, bytes32[] calldata) external {
        _delegate();
    }

    /// @notice The verifier posts its verdict; the challenge window (`challengeWindowBlocks`) and then the
    ///         reveal window (`revealWindowBlocks`) open. A rejection names the failed `segment` (below
    ///         `checkpointCount - 1`) and the non-zero end hash its replay produced; an acceptance passes 0, 0.
    /// @param distance the largest normalized distance measured, scaled by 1e18; recorded, not judged.
    function postVerdict(
        uint256 id,
        bytes32[] calldata state,
        bool accepted,
        bytes32 reportHash,
        uint256 distance,
        uint32 segment,
        bytes32 replayHash
    ) external {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verifying);
        if (msg.sender != t.verifier) revert NotVerifier(id, msg.sender);
        _requireBeforeDeadline(id, t);
        if (
            accepted
                ? (segment != 0 || replayHash != bytes32(0))
                : (uint256(segment) + 1 >= t.checkpointCount || replayHash == bytes32(0))
        ) revert InvalidRejectionClaim(id);
        (uint64 challengeBlocks, uint64 openBlocks, uint64 revealBlocks) = config.verdictWindows();
        uint64 challengeEnd = uint64(block.number) + challengeBlocks;
        uint64 openEnd = challengeEnd + openBlocks;
        uint64 revealEnd = openEnd + revealBlocks;

        t.status = Status.Verified;
        t.accepted = accepted;
        // The distance is only logged.
        t.rejectSegment = segment;
        t.rejectReplayHash = replayHash;
        t.verdictBlock = uint64(block.number);
        t.challengeEndBlock = challengeEnd;
        t.openEndBlock = openEnd;
        t.revealEndBlock = revealEnd;
        _save(id, t);
        emit VerdictPosted(id, msg.sender, accepted, reportHash, distance, segment, replayHash, challengeEnd, openEnd, revealEnd);
    }

    // ---------------------------------------------------------------- challenge and reveal windows (TaskMarketDisputes)

    /// @notice A whistleblower (WHISTLEBLOWER role, neither the solver nor the verifier) commits to a challenge of
    ///         an accepted verdict in the challenge window: `commitment = keccak256(abi.encode(id, whistleblower,
    ///         segment, claimedEndHash, salt))`. Locks `challengeDeposit`; seats go in commit order.
    /// @dev Runs TaskMarketDisputes.commitChallenge on this market's storage.
    function commitChallenge(uint256, bytes32[] calldata, bytes32, bytes calldata) external {
        _delegate();
    }

    /// @notice The whistleblower opens its commitment in the open window: checkpoints `segment`/`segment + 1` of
    ///         the committed proof are `startHash`/`endHash` (Merkle proofs against `proofRoot`), and its own
    ///         replay of the segment ends in `claimedEndHash` (non-zero, != endHash). Queued, played at settle in
    ///         commit order; a commitment never opened forfeits its deposit.
    /// @dev Runs TaskMarketDisputes.openChallenge on this market's storage.
    function openChallenge(
        uint256,
        bytes32[] calldata,
        uint32,
        bytes32,
        bytes32,
        bytes32,
        bytes32[] calldata,
        bytes32,
        bytes32[] calldata
    ) external {
        _delegate();
    }

    /// @notice The solver disputes a rejection, once: checkpoints `rejectSegment`/`rejectSegment + 1` of its
    ///         proof are `startHash`/`endHash`; the verifier's claim is the verdict's replay hash. Played at
    ///         settle.
    /// @dev Runs TaskMarketDisputes.disputeRejection on this market's storage.
    function disputeRejection(uint256, bytes32[] calldata, bytes32, bytes32[] calldata, bytes32, bytes32[] calldata)
        external
    {
        _delegate();
    }

    /// @notice The solver reveals that its published proof was a forced error (docs/disputes.md, lifecycle 7):
    ///         the secret, the seed (ProofCommitted's) and the honest proof open the commitment (`secretHash`, with
    ///         `sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash, secret))`), the coin
    ///         `keccak256(abi.encode(secret, seed)) % 10000 < forcedErrorBps` came up and the honest root differs
    ///         from the published one. In the reveal window, after the open window: catchers (the
    ///         verifier if it rejected, else the whistleblowers that opened their challenges; one never opened
    ///         forfeits its deposit) share `min(jackpotCap, jackpot)` by weights 2^(n-1-i); a verifier that accepted is
    ///         slashed (winner: the first catcher), one that rejected is unlocked; deposits are unlocked; the
    ///         honest proof replaces the published one and the task is Committed again for a fresh verification,
    ///         the old verifier barred if it accepted (one that rejected gave the right answer and may verify the
    ///         honest proof). The solver keeps its stake locked and is not penalised.
    /// @dev Runs TaskMarketDisputes.revealForcedError on this market's storage.
    function revealForcedError(uint256, bytes32[] calldata, bytes32, bytes32, bytes32, bytes32) external {
        _delegate();
    }

    // ---------------------------------------------------------------- settlement

    /// @notice Anyone moves a verified task on, after its reveal window. One step per call:
    ///         - a dispute in progress: reverts `DisputeInProgress` until the game's outcome is final, then
    ///           applies it (docs/disputes.md, "Outcomes");
    ///         - else the next opened challenge, or the filed rejection dispute, starts its game (a challenge
    ///           committed and never opened forfeits its deposit and is skipped, one per call);
    ///         - else it finalises: accepted -> Settled, fees paid less tax (the tax goes to the jackpot);
    ///           rejected -> the rejection split and the task reopens.
    ///         Call it until the task has left Verified.
    function settle(uint256 id, bytes32[] calldata state) external {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verified);
        if (block.number <= t.revealEndBlock) revert SettlementNotReady(id, t.revealEndBlock);
        _settleStep(id, t);
        _save(id, t);
    }

    /// @dev One step of `settle` on the task's state `t` (which the caller saves). The step's calls go to the book, the
    ///      registry and the game, none of which calls back into the market: nobody can act on the task between those
    ///      calls and the save.
    function _settleStep(uint256 id, Task memory t) private {
        uint256 disputeId = t.activeDispute;
        if (disputeId != 0) {
            IPinpointGame.Outcome outcome = game.outcomeOf(disputeId);
            if (outcome == IPinpointGame.Outcome.None) revert DisputeInProgress(id, disputeId);
            t.activeDispute = 0;
            if (t.accepted) _applyChallengeOutcome(id, t, disputeId, outcome);
            else _applyRejectionOutcome(id, t, disputeId, outcome);
            return;
        }
        if (t.accepted) {
            Challenge[] storage queue = _challenges[id];
            uint256 next = t.nextChallenge;
            if (next < queue.length) {
                Challenge storage c = queue[next];
                if (c.state != ChallengeState.Queued) {
                    // Never opened (forfeited here, with every later one never opened): skipped, one per call.
                    _forfeitUnopened(id, next);
                    t.nextChallenge = uint8(next + 1);
                    return;
                }
                c.state = ChallengeState.Playing;
                // A zero committed checkpoint is no sha256 of any state: the proof is wrong on its face (and the
                // game refuses zero hashes), so the whistleblower wins without a game.
                if (c.startHash == bytes32(0) || c.endHash == bytes32(0)) {
                    _applyChallengeOutcome(id, t, 0, IPinpointGame.Outcome.ChallengerWon);
                } else {
                    c.disputeId =
                        _openGame(id, t, c.whistleblower, false, t.verifier, c.segment, c.startHash, c.endHash, c.claimedEndHash);
                }
            } else {
                _settleAccepted(id, t);
            }
        } else if (t.disputeFiled) {
            // Decided without a game: a zero committed checkpoint is wrong on its face (the verifier wins); a
            // verifier whose own replay agrees with the committed checkpoint rejected it falsely (the solver wins).
            if (t.rejectStartHash == bytes32(0) || t.rejectEndHash == bytes32(0)) {
                _applyRejectionOutcome(id, t, 0, IPinpointGame.Outcome.ChallengerWon);
            } else if (t.rejectEndHash == t.rejectReplayHash) {
                _applyRejectionOutcome(id, t, 0, IPinpointGame.Outcome.ProverWon);
            } else {
                _openGame(
                    id, t, t.verifier, true, address(0), t.rejectSegment, t.rejectStartHash, t.rejectEndHash, t.rejectReplayHash
                );
            }
        } else {
            _reject(id, t, true);
        }
    }

    /// @notice Anyone moves on a task whose stage deadline (seconds) has passed.
    ///         Claimed (no proof in time): a training timeout. `timeoutSlashBps` of the solver's locked stake is
    ///         slashed (no winner), the rest unlocked, and the task reopens for another solver (ClaimTimedOut,
    ///         TaskReopened); the escrow stays.
    ///         Otherwise the task expires and the escrow (what is left of it) goes back to the submitter.
    ///         Submitted (nobody claimed it; a task with a parent: see the contract's notes on deadlines).
    ///         Committed (no verifier): the solver's stake is unlocked. Verifying (no verdict): the solver's stake
    ///         is unlocked and the verifier's slashed (no winner).
    /// @dev Runs TaskMarketDisputes.expire on this market's storage (off the honest path, like the dispute actions).
    function expire(uint256, bytes32[] calldata) external {
        _delegate();
    }

    // ---------------------------------------------------------------- views

    /// @notice Task `id` decoded from its current `state` (the words of its last TaskState event; `StaleTask`
    ///         for any other), with its rewards (`solverReward`, `verifierReward`) computed from the price and
    ///         schedule. The spec, manifest and report hashes, the verification randomness and the verdict's distance
    ///         are not in the state (see `Task`): readers take them from the events and the block hash that fixed
    ///         them. From the commit `secretHash` is the forced-error commitment and `seed` is 0 unless `fixSeed`
    ///         recorded it: the secret's hash, the seed and the seal are in TaskClaimed and ProofCommitted.
    function getTask(uint256 id, bytes32[] calldata state) external view returns (Task memory task) {
        task = _open(id, state);
        (task.solverReward, task.verifierReward) = _rewards(task);
    }

    /// @notice The whistleblower challenges of the task's current verdict, in queue order (cleared when the task
    ///         reopens or goes back to Committed).
    function challengesOf(uint256 id) external view returns (Challenge[] memory) {
        _requireTask(id);
        return _challenges[id];
    }

    /// @notice Ether credited to `account` and not yet withdrawn.
    function creditOf(address account) external view returns (uint256) {
        return _credits[account];
    }

    /// @notice True when `solver` was rejected on task `id` (it can then never claim that task again).
    function wasRejected(uint256 id, address solver) external view returns (bool) {
        return _rejected[id][solver];
    }

    /// @notice True when `verifier` may no longer verify task `id`.
    function isVerifierBarred(uint256 id, address verifier) external view returns (bool) {
        return _barred[id][verifier];
    }

    /// @notice The forced-error coin of a Claimed task for `secret` (the solver's, checked against `secretHash`),
    ///         tossed as commitProof will: with the recorded seed or `blockhash(claimBlock + 1)` (reverts
    ///         `RandomnessNotReady` until that block exists, `RandomnessExpired` once it is forgotten). Once the
    ///         proof is committed the commitment holds the seed and the seal too (`InvalidStatus`): the coin is then
    ///         `keccak256(abi.encode(secret, seed)) % 10000 < forcedErrorBps` with ProofCommitted's seed.
    function forcedErrorOf(uint256 id, bytes32[] calldata state, bytes32 secret) external view returns (bool) {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Claimed);
        if (keccak256(abi.encode(secret)) != t.secretHash) revert InvalidSecret(id);
        return _isForced(secret, _seed(id, t), t.forcedErrorBps);
    }

    /// @dev Forwards this call to `disputes` by DELEGATECALL and returns or reverts with its result.
    function _delegate() private {
        address target = disputes;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), target, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            if iszero(ok) { revert(0, returndatasize()) }
            return(0, returndatasize())
        }
    }
}
