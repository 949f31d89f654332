// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, SOLVER_ROLE, VERIFIER_ROLE} from "./RoleRegistry.sol";

/// @title TaskMarket
/// @notice The life of a training task: submission with escrow, a solver's claim and proof commitment, a
///         verifier's claim and verdict, a challenge window, and settlement, reopening (after a rejection) or
///         expiry.
/// @dev The market holds escrow (ether); the registry holds stakes. `totalEscrow` is the sum of the escrow
///      of every live task (not yet Settled or Expired) and equals the contract's balance (no
///      receive/fallback function, so plain transfers revert).
///
///      A rejection does not end a task: the solver's stake pays for the failed verification, the task goes
///      back to Submitted with its escrow, and another solver may claim it (see `settle`). The rejected
///      solver can never claim that task again.
///
///      Deadlines: every stage has one deadline, stored in `Task.deadline`. An action of the stage is
///      allowed while `block.timestamp <= deadline`; `expire` is allowed once `block.timestamp > deadline`.
///      - Submitted: submittedAt + claimTimeout (after a rejection: the reopening time + claimTimeout)
///      - Claimed: claim time + trainingTimeout
///      - Committed: commit time + verificationTimeout (a verifier must claim by then)
///      - Verifying: verifier's claim time + verificationTimeout (the verdict must be posted by then)
///      - Verified: verdict time + challengeWindow (settle is allowed after it)
///
///      Payments are pushed with `call` after every state change (checks-effects-interactions); a recipient
///      that rejects ether makes the call revert with `TransferFailed`. Note that this lets a recipient that
///      rejects ether (e.g. a submitter contract) block settlement of its own task; a pull-payment ledger
///      would remove that griefing vector.
contract TaskMarket {
    enum Status {
        None,
        Submitted,
        Claimed,
        Committed,
        Verifying,
        Verified,
        Settled,
        Expired
    }

    /// @dev `escrow` is the ether held for the task: msg.value at submission, less any verifier-fee shortfall
    ///      paid out on a rejection (see `settle`). It stops counting towards `totalEscrow` once the task is
    ///      Settled or Expired (the field then keeps its last value for the record).
    ///      `attempts` counts the rejected attempts (0 until the first rejection).
    ///      `distance` is the verdict's largest measured normalized distance, scaled by 1e18 (see postVerdict).
    ///      A rejection clears solver, verifier, the proof fields and the verdict fields (accepted,
    ///      reportHash, distance): a reopened task reads like a fresh Submitted one apart from `attempts`,
    ///      `escrow` and `deadline`; the history of earlier attempts is in the events.
    struct Task {
        address submitter;
        address solver;
        address verifier;
        Status status;
        bool accepted;
        uint32 attempts;
        bytes32 specHash;
        uint256 escrow;
        uint256 solverReward;
        uint256 verifierReward;
        uint64 claimTimeout;
        uint64 trainingTimeout;
        uint64 verificationTimeout;
        uint64 deadline;
        uint64 submittedAt;
        uint64 commitBlock;
        uint32 checkpointCount;
        bytes32 proofRoot;
        bytes32 manifestHash;
        bytes32 randomness;
        bytes32 reportHash;
        uint256 distance;
    }

    /// @notice Longest accepted timeout (and challenge window): keeps every deadline far from uint64 overflow.
    uint64 public constant MAX_TIMEOUT = 365 days;
    /// @notice A proof needs at least a start and an end checkpoint.
    uint32 public constant MIN_CHECKPOINTS = 2;

    // ---------------------------------------------------------------- errors
    error ZeroAddress();
    error InsufficientEscrow(uint256 provided, uint256 required);
    error ZeroSpecHash();
    error InvalidTimeout();
    error TaskNotFound(uint256 id);
    error InvalidStatus(uint256 id, Status current);
    error NotRegistered(address account, uint8 role);
    error DeadlinePassed(uint256 id, uint64 deadline);
    error NotSolver(uint256 id, address caller);
    error ZeroProofRoot();
    error TooFewCheckpoints(uint32 count);
    error SolverCannotVerify(uint256 id);
    error RandomnessNotReady(uint256 id, uint64 readyAtBlock);
    error NotVerifier(uint256 id, address caller);
    error ChallengeWindowOpen(uint256 id, uint64 endsAt);
    error DeadlineNotReached(uint256 id, uint64 deadline);
    error NotExpirable(uint256 id, Status current);
    error SolverRejected(uint256 id, address solver);
    error EscrowExhausted(uint256 id, uint256 escrow, uint256 required);
    error TransferFailed(address to, uint256 amount);
    // Declared again here (same signatures as RoleRegistry's) so that this contract's ABI can decode the
    // registry errors that bubble up through claimTask/claimVerification/settle/expire.
    error InsufficientFreeStake(uint256 available, uint256 requested);
    error InsufficientLockedStake(uint256 locked, uint256 requested);
    error NotMarket();

    // ---------------------------------------------------------------- events
    event TaskSubmitted(
        uint256 indexed id,
        address indexed submitter,
        bytes32 specHash,
        uint256 escrow,
        uint256 solverReward,
        uint256 verifierReward
    );
    event TaskClaimed(uint256 indexed id, address indexed solver);
    event ProofCommitted(uint256 indexed id, bytes32 proofRoot, bytes32 manifestHash, uint32 checkpointCount);
    event VerificationClaimed(uint256 indexed id, address indexed verifier, bytes32 randomness);
    /// @param distance largest normalized distance measured between the replays and the committed checkpoints,
    ///        scaled by 1e18 (0: every replay matched bit for bit)
    event VerdictPosted(uint256 indexed id, address indexed verifier, bool accepted, bytes32 reportHash, uint256 distance);
    /// @notice Emitted for accepted settlements only (`accepted` is always true); a rejection emits
    ///         TaskRejected and TaskReopened instead.
    event TaskSettled(uint256 indexed id, bool accepted, uint256 solverPaid, uint256 verifierPaid, uint256 refunded);
    /// @param slashed the solver's whole locked stake (`solverStake`)
    /// @param verifierPaid everything the verifier earned: verifierReward (from the slashed stake, and from the
    ///        escrow for any shortfall) plus the bounty
    /// @param treasuryPaid the slashed stake that went to the treasury
    /// @param attempts the task's rejected attempts, this one included
    /// @dev The escrow paid `verifierPaid + treasuryPaid - slashed` (the shortfall; 0 unless solverStake <
    ///      verifierReward).
    event TaskRejected(
        uint256 indexed id,
        address indexed solver,
        uint256 slashed,
        uint256 verifierPaid,
        uint256 treasuryPaid,
        uint32 attempts
    );
    event TaskReopened(uint256 indexed id, uint64 claimDeadline);
    event TaskExpired(uint256 indexed id, Status fromStatus, uint256 refunded);

    // ---------------------------------------------------------------- state
    RoleRegistry public immutable registry;
    address public immutable treasury;
    uint256 public immutable solverStake;
    uint256 public immutable verifierStake;
    uint64 public immutable challengeWindow;

    uint256 public taskCount;
    uint256 public totalEscrow;

    mapping(uint256 => Task) private _tasks;
    /// @dev task id => solver => rejected on that task (then barred from claiming it again).
    mapping(uint256 => mapping(address => bool)) private _rejected;

    constructor(
        address registry_,
        address treasury_,
        uint256 solverStake_,
        uint256 verifierStake_,
        uint64 challengeWindow_
    ) {
        if (registry_ == address(0) || treasury_ == address(0)) revert ZeroAddress();
        if (challengeWindow_ > MAX_TIMEOUT) revert InvalidTimeout();
        registry = RoleRegistry(registry_);
        treasury = treasury_;
        solverStake = solverStake_;
        verifierStake = verifierStake_;
        challengeWindow = challengeWindow_;
    }

    // ---------------------------------------------------------------- submission

    /// @notice Posts a task; the ether sent is its escrow. Task ids start at 1.
    function submitTask(
        bytes32 specHash,
        uint256 solverReward,
        uint256 verifierReward,
        uint64 claimTimeout,
        uint64 trainingTimeout,
        uint64 verificationTimeout
    ) external payable returns (uint256 id) {
        // Saturating sum: rewards whose sum overflows can never be covered by msg.value.
        uint256 required = solverReward > type(uint256).max - verifierReward
            ? type(uint256).max
            : solverReward + verifierReward;
        if (msg.value < required) revert InsufficientEscrow(msg.value, required);
        if (specHash == bytes32(0)) revert ZeroSpecHash();
        _checkTimeout(claimTimeout);
        _checkTimeout(trainingTimeout);
        _checkTimeout(verificationTimeout);

        id = ++taskCount;
        Task storage t = _tasks[id];
        t.submitter = msg.sender;
        t.status = Status.Submitted;
        t.specHash = specHash;
        t.escrow = msg.value;
        t.solverReward = solverReward;
        t.verifierReward = verifierReward;
        t.claimTimeout = claimTimeout;
        t.trainingTimeout = trainingTimeout;
        t.verificationTimeout = verificationTimeout;
        t.submittedAt = uint64(block.timestamp);
        t.deadline = _after(claimTimeout);
        totalEscrow += msg.value;

        emit TaskSubmitted(id, msg.sender, specHash, msg.value, solverReward, verifierReward);
    }

    // ---------------------------------------------------------------- training

    /// @notice A registered solver takes an open task and locks `solverStake` of its free stake.
    ///         A solver once rejected on this task cannot claim it again (`SolverRejected`). A reopened task
    ///         whose escrow no longer covers solverReward + verifierReward (shortfalls paid on earlier
    ///         rejections, see `settle`) cannot be claimed (`EscrowExhausted`); its submitter expires it after
    ///         the claim deadline to get the rest back.
    function claimTask(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Submitted);
        _requireRole(SOLVER_ROLE);
        // Both checks can only fail on a reopened task (attempts > 0): skip their storage reads otherwise.
        if (t.attempts != 0) {
            if (_rejected[id][msg.sender]) revert SolverRejected(id, msg.sender);
            // No overflow: submitTask checked solverReward + verifierReward <= msg.value.
            uint256 required = t.solverReward + t.verifierReward;
            if (t.escrow < required) revert EscrowExhausted(id, t.escrow, required);
        }
        _requireBeforeDeadline(id, t);

        t.solver = msg.sender;
        t.status = Status.Claimed;
        t.deadline = _after(t.trainingTimeout);
        emit TaskClaimed(id, msg.sender);

        registry.lock(msg.sender, solverStake);
    }

    /// @notice The solver commits to its proof of learning: the Merkle root over checkpoint hashes, the
    ///         manifest blob's hash and the number of checkpoints.
    function commitProof(uint256 id, bytes32 proofRoot, bytes32 manifestHash, uint32 checkpointCount) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Claimed);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        _requireBeforeDeadline(id, t);
        if (proofRoot == bytes32(0) || manifestHash == bytes32(0)) revert ZeroProofRoot();
        if (checkpointCount < MIN_CHECKPOINTS) revert TooFewCheckpoints(checkpointCount);

        t.status = Status.Committed;
        t.proofRoot = proofRoot;
        t.manifestHash = manifestHash;
        t.checkpointCount = checkpointCount;
        t.commitBlock = uint64(block.number);
        t.deadline = _after(t.verificationTimeout);
        emit ProofCommitted(id, proofRoot, manifestHash, checkpointCount);
    }

    // ---------------------------------------------------------------- verification

    /// @notice A registered verifier (not the solver) takes a committed task, locks `verifierStake`, and
    ///         fixes the randomness that picks the segments to replay.
    /// @dev The randomness is `blockhash(commitBlock + 1)`: the hash of a block mined after the commit, so the
    ///      solver could not know it when committing. Hence the claim needs `block.number > commitBlock + 1`.
    ///      EVM only serves the 256 most recent block hashes; if that block is older (nobody claimed for
    ///      more than 256 blocks) the randomness falls back to `keccak256(abi.encode(id,
    ///      blockhash(block.number - 1)))`. That fallback is still unknown to the solver at commit time, but a
    ///      verifier could pick its claim block to grind it, so a deployment should keep
    ///      `verificationTimeout` below 256 block times.
    function claimVerification(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Committed);
        _requireRole(VERIFIER_ROLE);
        if (msg.sender == t.solver) revert SolverCannotVerify(id);
        _requireBeforeDeadline(id, t);
        uint256 randomBlock = uint256(t.commitBlock) + 1;
        if (block.number <= randomBlock) revert RandomnessNotReady(id, uint64(randomBlock + 1));

        bytes32 randomness = blockhash(randomBlock);
        if (randomness == bytes32(0)) randomness = keccak256(abi.encode(id, blockhash(block.number - 1)));

        t.verifier = msg.sender;
        t.status = Status.Verifying;
        t.randomness = randomness;
        // The verifier gets a full verificationTimeout to replay and post its verdict.
        t.deadline = _after(t.verificationTimeout);
        emit VerificationClaimed(id, msg.sender, randomness);

        registry.lock(msg.sender, verifierStake);
    }

    /// @notice The verifier posts its verdict; the challenge window opens.
    /// @param distance the largest normalized distance the verifier measured between its replays and the
    ///        committed checkpoints, as a fixed-point number scaled by 1e18 (0 when every replay matched bit
    ///        for bit). Recorded for the record and for later challenges; the market does not judge it.
    function postVerdict(uint256 id, bool accepted, bytes32 reportHash, uint256 distance) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verifying);
        if (msg.sender != t.verifier) revert NotVerifier(id, msg.sender);
        _requireBeforeDeadline(id, t);

        t.status = Status.Verified;
        t.accepted = accepted;
        t.reportHash = reportHash;
        t.distance = distance;
        t.deadline = _after(challengeWindow);
        emit VerdictPosted(id, msg.sender, accepted, reportHash, distance);
    }

    // ---------------------------------------------------------------- settlement

    /// @notice Anyone settles a verified task once its challenge window has closed.
    ///
    ///         Accepted -> Settled: the solver gets solverReward, the verifier verifierReward, the submitter the
    ///         rest of the escrow; both stakes are unlocked. Emits TaskSettled.
    ///
    ///         Rejected -> Submitted again (the task reopens). The solver's locked stake S = `solverStake` is
    ///         slashed inside the registry (no ether moves for it):
    ///         1. fee = min(S, verifierReward) goes to the verifier: its fee for the failed verification is
    ///            paid by the cheater, so the submitter loses nothing;
    ///         2. bounty = (S - fee) / 2 (rounded down) goes to the verifier;
    ///         3. the rest, S - fee - bounty, goes to the treasury.
    ///         If S < verifierReward, the shortfall verifierReward - S is paid to the verifier in ether from
    ///         the escrow: `escrow` and `totalEscrow` shrink by it, `verifierReward` stays the same for the
    ///         next attempt. The verifier's stake is unlocked. The task goes back to Submitted with a fresh
    ///         claim deadline (now + claimTimeout), solver/verifier/proof/verdict fields cleared and `attempts`
    ///         incremented; the escrow stays here for the next solver, and the rejected solver may never
    ///         claim this task again. Emits TaskRejected then TaskReopened.
    ///
    ///         A task that keeps failing is not capped: its submitter can expire it once a claim deadline
    ///         passes with nobody claiming, which refunds the whole remaining escrow.
    /// @dev Worked example (devnet defaults, S = 1 ether, verifierReward = 0.5 ether): the verifier's free
    ///      stake grows by 0.5 (fee) + 0.25 (bounty) = 0.75 ether, the treasury's by 0.25 ether, the escrow
    ///      stays whole. With S = 0.2 ether: fee 0.2 ether of stake, shortfall 0.3 ether from the escrow,
    ///      bounty and treasury 0.
    function settle(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (block.timestamp <= t.deadline) revert ChallengeWindowOpen(id, t.deadline);
        if (t.accepted) _settleAccepted(id, t);
        else _reject(id, t);
    }

    /// @notice Anyone expires a task whose stage deadline has passed. The escrow (what is left of it after
    ///         any rejection shortfalls) always goes back to the submitter. Claimed (no proof): the solver's
    ///         stake is slashed to the treasury. Committed (no verifier): the solver's stake is unlocked.
    ///         Verifying (no verdict): the solver's stake is unlocked and the verifier's stake is slashed to
    ///         the treasury.
    function expire(uint256 id) external {
        Task storage t = _task(id);
        Status from = t.status;
        if (from != Status.Submitted && from != Status.Claimed && from != Status.Committed && from != Status.Verifying) {
            revert NotExpirable(id, from);
        }
        if (block.timestamp <= t.deadline) revert DeadlineNotReached(id, t.deadline);

        uint256 refunded = t.escrow;
        t.status = Status.Expired;
        totalEscrow -= refunded;
        emit TaskExpired(id, from, refunded);

        if (from == Status.Claimed) {
            registry.slash(t.solver, solverStake, treasury);
        } else if (from == Status.Committed) {
            registry.unlock(t.solver, solverStake);
        } else if (from == Status.Verifying) {
            registry.unlock(t.solver, solverStake);
            registry.slash(t.verifier, verifierStake, treasury);
        }

        _pay(t.submitter, refunded);
    }

    // ---------------------------------------------------------------- views

    function getTask(uint256 id) external view returns (Task memory) {
        return _task(id);
    }

    /// @notice True when `solver` was rejected on task `id` (it can then never claim that task again).
    function wasRejected(uint256 id, address solver) external view returns (bool) {
        return _rejected[id][solver];
    }

    // ---------------------------------------------------------------- internals

    function _settleAccepted(uint256 id, Task storage t) private {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 solverPaid = t.solverReward;
        uint256 verifierPaid = t.verifierReward;
        // No underflow: claimTask only lets a solver in while escrow >= solverReward + verifierReward, and
        // the escrow does not change between a claim and its settlement.
        uint256 refunded = t.escrow - solverPaid - verifierPaid;

        t.status = Status.Settled;
        totalEscrow -= t.escrow;
        emit TaskSettled(id, true, solverPaid, verifierPaid, refunded);

        registry.unlock(solver, solverStake);
        registry.unlock(verifier, verifierStake);

        _pay(solver, solverPaid);
        _pay(verifier, verifierPaid);
        _pay(t.submitter, refunded);
    }

    /// @dev See `settle` for the split. All effects (task reset, escrow bookkeeping, events) come before the
    ///      registry calls and the one payment (the shortfall, if any).
    function _reject(uint256 id, Task storage t) private {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 slashed = solverStake;
        uint256 reward = t.verifierReward;
        uint256 fee = slashed < reward ? slashed : reward;
        uint256 shortfall = reward - fee;
        uint256 bounty = (slashed - fee) / 2;
        uint256 toTreasury = slashed - fee - bounty;
        uint32 attempts = t.attempts + 1;
        uint64 claimDeadline = _after(t.claimTimeout);

        _rejected[id][solver] = true;
        t.status = Status.Submitted;
        t.attempts = attempts;
        t.solver = address(0);
        t.verifier = address(0);
        t.accepted = false;
        t.deadline = claimDeadline;
        t.commitBlock = 0;
        t.checkpointCount = 0;
        t.proofRoot = bytes32(0);
        t.manifestHash = bytes32(0);
        t.randomness = bytes32(0);
        t.reportHash = bytes32(0);
        t.distance = 0;
        if (shortfall != 0) {
            // No underflow: escrow >= solverReward + verifierReward >= shortfall (checked at claim).
            t.escrow -= shortfall;
            totalEscrow -= shortfall;
        }
        emit TaskRejected(id, solver, slashed, reward + bounty, toTreasury, attempts);
        emit TaskReopened(id, claimDeadline);

        if (fee + bounty != 0) registry.slash(solver, fee + bounty, verifier);
        if (toTreasury != 0) registry.slash(solver, toTreasury, treasury);
        registry.unlock(verifier, verifierStake);

        _pay(verifier, shortfall);
    }

    function _task(uint256 id) private view returns (Task storage t) {
        if (id == 0 || id > taskCount) revert TaskNotFound(id);
        return _tasks[id];
    }

    function _requireStatus(uint256 id, Task storage t, Status expected) private view {
        if (t.status != expected) revert InvalidStatus(id, t.status);
    }

    function _requireRole(uint8 role) private view {
        if (!registry.hasRoles(msg.sender, role)) revert NotRegistered(msg.sender, role);
    }

    function _requireBeforeDeadline(uint256 id, Task storage t) private view {
        if (block.timestamp > t.deadline) revert DeadlinePassed(id, t.deadline);
    }

    function _checkTimeout(uint64 timeout) private pure {
        if (timeout == 0 || timeout > MAX_TIMEOUT) revert InvalidTimeout();
    }

    /// @dev Timeouts are at most MAX_TIMEOUT, so this cannot overflow uint64 for the lifetime of any chain.
    function _after(uint64 duration) private view returns (uint64) {
        return uint64(block.timestamp) + duration;
    }

    /// @dev Push payment after all effects; zero amounts are skipped.
    function _pay(address to, uint256 amount) private {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(to, amount);
    }
}
