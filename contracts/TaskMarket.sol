// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, SOLVER_ROLE, VERIFIER_ROLE} from "./RoleRegistry.sol";

/// @title TaskMarket
/// @notice The life of a training task: submission with escrow, a solver's claim and proof commitment, a
///         verifier's claim and verdict, a challenge window, and settlement or expiry.
/// @dev The market holds escrow (ether); the registry holds stakes. `totalEscrow` is the sum of the escrow
///      of every live task (not yet Settled or Expired) and equals the contract's balance (no
///      receive/fallback function, so plain transfers revert).
///
///      Deadlines: every stage has one deadline, stored in `Task.deadline`. An action of the stage is
///      allowed while `block.timestamp <= deadline`; `expire` is allowed once `block.timestamp > deadline`.
///      - Submitted: submittedAt + claimTimeout
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

    /// @dev `escrow` keeps the amount escrowed at submission for the record; it stops counting towards
    ///      `totalEscrow` once the task is Settled or Expired.
    struct Task {
        address submitter;
        address solver;
        address verifier;
        Status status;
        bool accepted;
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
    event VerdictPosted(uint256 indexed id, address indexed verifier, bool accepted, bytes32 reportHash);
    event TaskSettled(uint256 indexed id, bool accepted, uint256 solverPaid, uint256 verifierPaid, uint256 refunded);
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
    function claimTask(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Submitted);
        _requireRole(SOLVER_ROLE);
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
    function postVerdict(uint256 id, bool accepted, bytes32 reportHash) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verifying);
        if (msg.sender != t.verifier) revert NotVerifier(id, msg.sender);
        _requireBeforeDeadline(id, t);

        t.status = Status.Verified;
        t.accepted = accepted;
        t.reportHash = reportHash;
        t.deadline = _after(challengeWindow);
        emit VerdictPosted(id, msg.sender, accepted, reportHash);
    }

    // ---------------------------------------------------------------- settlement

    /// @notice Anyone settles a verified task once its challenge window has closed.
    ///         Accepted: solver gets solverReward, verifier gets verifierReward, the submitter the rest; both
    ///         stakes are unlocked.
    ///         Rejected: verifier gets verifierReward, the submitter the rest (escrow - verifierReward); the
    ///         solver's stake is slashed, half (rounded down) to the verifier and the rest to the treasury; the
    ///         verifier's stake is unlocked.
    function settle(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (block.timestamp <= t.deadline) revert ChallengeWindowOpen(id, t.deadline);

        address solver = t.solver;
        address verifier = t.verifier;
        address submitter = t.submitter;
        uint256 solverPaid = t.accepted ? t.solverReward : 0;
        uint256 verifierPaid = t.verifierReward;
        uint256 refunded = t.escrow - solverPaid - verifierPaid;

        t.status = Status.Settled;
        totalEscrow -= t.escrow;
        emit TaskSettled(id, t.accepted, solverPaid, verifierPaid, refunded);

        if (t.accepted) {
            registry.unlock(solver, solverStake);
        } else {
            uint256 toVerifier = solverStake / 2;
            registry.slash(solver, toVerifier, verifier);
            registry.slash(solver, solverStake - toVerifier, treasury);
        }
        registry.unlock(verifier, verifierStake);

        _pay(solver, solverPaid);
        _pay(verifier, verifierPaid);
        _pay(submitter, refunded);
    }

    /// @notice Anyone expires a task whose stage deadline has passed. The escrow always goes back to the
    ///         submitter. Claimed (no proof): the solver's stake is slashed to the treasury. Committed (no
    ///         verifier): the solver's stake is unlocked. Verifying (no verdict): the solver's stake is unlocked
    ///         and the verifier's stake is slashed to the treasury.
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

    // ---------------------------------------------------------------- internals

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
