// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, SOLVER_ROLE, VERIFIER_ROLE, WHISTLEBLOWER_ROLE} from "./RoleRegistry.sol";
import {ProtocolConfig, Params} from "./ProtocolConfig.sol";
import {IPinpointGame} from "./IPinpointGame.sol";
import {ProofMerkle} from "./ProofMerkle.sol";

/// @title TaskMarket
/// @notice The life of a training task (docs/disputes.md): submission with escrow, a solver's claim (with a
///         committed secret for the forced-error coin) and proof commitment, a verifier's claim and verdict, a
///         challenge window (whistleblower challenges, the solver's dispute of a rejection), a reveal window
///         (forced errors, paid from the jackpot), the disputes played in the PinpointGame, and settlement,
///         reopening or expiry.
/// @dev Money. The market holds escrow and the jackpot (ether): invariant balance == totalEscrow + jackpot (no
///      receive/fallback, so plain transfers revert). `totalEscrow` is the escrow of every live task (not
///      Settled or Expired). The registry holds stakes; every slash goes through `_slash` (winner, treasury
///      and burned shares of ProtocolConfig). Stake amounts are snapshotted into the task when locked
///      (`solverLocked`, `verifierLocked`, each challenge's `deposit`).
///
///      Deadlines. The stages before the verdict have one deadline in seconds, `Task.deadline` (an action is
///      allowed while `block.timestamp <= deadline`, `expire` once it is past):
///      Submitted: submission (or reopening) + claimTimeout; Claimed: claim + trainingTimeout; Committed:
///      commit + verificationTimeout; Verifying: the verifier's claim + verificationTimeout.
///      After the verdict the windows are block counts snapshotted at the verdict: challenges and rejection
///      disputes while `block.number <= challengeEndBlock`, forced-error reveals in
///      `(challengeEndBlock, revealEndBlock]`, `settle` after `revealEndBlock`. `deadline` is unused while
///      Verified.
///
///      Payments (fees, refunds, a rejection's shortfall) are pushed with `call` after every state change; a
///      recipient that rejects ether makes the call revert with `TransferFailed`. Jackpot shares are paid into
///      the catchers' registry stake (`depositFor`), so no catcher can block a reveal.
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

    enum ChallengeState {
        Queued,
        Playing,
        Done
    }

    /// @dev `escrow` is the ether held for the task: msg.value at submission, less any verifier-fee shortfall
    ///      paid out on a rejection. `attempts` counts the times the task reopened. A reopening clears every
    ///      field of the attempt (solver, verifier, secret, proof, verdict, stakes, disputes); a return to
    ///      Committed (forced-error reveal, a won or void rejection dispute) clears the verification fields only.
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
        /// blockhash(commitBlock + 1): picks the segments a verifier replays
        bytes32 randomness;
        bytes32 reportHash;
        /// the verdict's largest normalized distance, 1e18-scaled
        uint256 distance;
        /// keccak256(abi.encode(secret)), committed at claimTask
        bytes32 secretHash;
        /// blockhash(claimBlock + 1), fixed at commitProof: with the secret it tosses the forced-error coin
        bytes32 seed;
        /// keccak256(abi.encode(honestRoot, honestManifestHash, secret))
        bytes32 sealedHonest;
        uint64 claimBlock;
        uint64 checkpointInterval;
        uint64 totalSteps;
        /// ProtocolConfig.forcedErrorBps at the claim (the coin's odds for this attempt)
        uint16 forcedErrorBps;
        bool forcedRevealed;
        uint64 verdictBlock;
        uint64 challengeEndBlock;
        uint64 revealEndBlock;
        /// a rejection's failed segment and the verifier's replayed end hash
        uint32 rejectSegment;
        /// the solver filed a dispute of the rejection (played at settle)
        bool disputeFiled;
        /// index of the next whistleblower challenge to play (or the one playing)
        uint8 nextChallenge;
        bytes32 rejectReplayHash;
        /// the committed checkpoints around the rejected segment (proven by disputeRejection)
        bytes32 rejectStartHash;
        bytes32 rejectEndHash;
        uint256 solverLocked;
        uint256 verifierLocked;
        /// the PinpointGame dispute being played (0: none)
        uint256 activeDispute;
    }

    struct Challenge {
        address whistleblower;
        uint32 segment;
        ChallengeState state;
        IPinpointGame.Outcome outcome;
        /// the whistleblower's replayed end hash of the segment
        bytes32 claimedEndHash;
        /// the committed checkpoints `segment` and `segment + 1`
        bytes32 startHash;
        bytes32 endHash;
        /// challengeDeposit locked for this challenge
        uint256 deposit;
        uint256 disputeId;
    }

    /// @notice Longest accepted stage timeout (seconds): keeps every deadline far from uint64 overflow.
    uint64 public constant MAX_TIMEOUT = 365 days;
    uint256 private constant BPS = 10000;

    // ---------------------------------------------------------------- errors
    error ZeroAddress();
    error ZeroAmount();
    error NotOwner(address caller);
    error GameAlreadySet();
    error GameNotSet();
    error InsufficientEscrow(uint256 provided, uint256 required);
    error ZeroSpecHash();
    error InvalidTimeout();
    error TaskNotFound(uint256 id);
    error InvalidStatus(uint256 id, Status current);
    error NotRegistered(address account, uint8 role);
    error DeadlinePassed(uint256 id, uint64 deadline);
    error NotSolver(uint256 id, address caller);
    error ZeroProofRoot();
    error InvalidSchedule(uint32 checkpointCount, uint64 checkpointInterval, uint64 totalSteps);
    error SolverCannotVerify(uint256 id);
    error RandomnessNotReady(uint256 id, uint64 readyAtBlock);
    error NotVerifier(uint256 id, address caller);
    error VerifierBarred(uint256 id, address verifier);
    error InvalidRejectionClaim(uint256 id);
    error DeadlineNotReached(uint256 id, uint64 deadline);
    error NotExpirable(uint256 id, Status current);
    error SolverRejected(uint256 id, address solver);
    error EscrowExhausted(uint256 id, uint256 escrow, uint256 required);
    error TransferFailed(address to, uint256 amount);
    error WrongVerdict(uint256 id, bool accepted);
    error PartyCannotChallenge(uint256 id, address caller);
    error ChallengeWindowClosed(uint256 id, uint64 endBlock);
    error InvalidChallengeClaim(uint256 id);
    error InvalidSegment(uint256 id, uint32 segment);
    error InvalidMerkleProof(uint256 id, uint256 index);
    error ChallengeQueueFull(uint256 id, uint8 maxChallengers);
    error AlreadyChallenged(uint256 id, address whistleblower);
    error DisputeAlreadyFiled(uint256 id);
    error OutsideRevealWindow(uint256 id, uint64 fromBlock, uint64 toBlock);
    error AlreadyRevealed(uint256 id);
    error InvalidSecret(uint256 id);
    error NotForcedError(uint256 id);
    error SealMismatch(uint256 id);
    error HonestRootUnchanged(uint256 id);
    error SettlementNotReady(uint256 id, uint64 afterBlock);
    error DisputeInProgress(uint256 id, uint256 disputeId);
    error TooManyCatchers(uint256 n);
    // Declared again here (same signatures as RoleRegistry's) so that this contract's ABI can decode the
    // registry errors that bubble up through the calls that lock, unlock, slash or burn stake.
    error InsufficientFreeStake(uint256 available, uint256 requested);
    error InsufficientLockedStake(uint256 locked, uint256 requested);
    error NotMarket();

    // ---------------------------------------------------------------- events
    event GameSet(address game);
    event TaskSubmitted(
        uint256 indexed id,
        address indexed submitter,
        bytes32 specHash,
        uint256 escrow,
        uint256 solverReward,
        uint256 verifierReward
    );
    /// @param stake the solver stake locked (snapshot of ProtocolConfig.solverStake)
    event TaskClaimed(uint256 indexed id, address indexed solver, bytes32 secretHash, uint256 stake);
    event ProofCommitted(
        uint256 indexed id,
        bytes32 proofRoot,
        bytes32 manifestHash,
        uint32 checkpointCount,
        uint64 checkpointInterval,
        uint64 totalSteps,
        bytes32 seed
    );
    /// @param stake the verifier stake locked (snapshot of ProtocolConfig.verifierStake)
    event VerificationClaimed(uint256 indexed id, address indexed verifier, bytes32 randomness, uint256 stake);
    /// @param distance largest normalized distance measured, scaled by 1e18 (0: every replay matched bit for bit)
    /// @param segment, replayHash a rejection's failed segment and the verifier's replayed end hash (0 if accepted)
    event VerdictPosted(
        uint256 indexed id,
        address indexed verifier,
        bool accepted,
        bytes32 reportHash,
        uint256 distance,
        uint32 segment,
        bytes32 replayHash,
        uint64 challengeEndBlock,
        uint64 revealEndBlock
    );
    event ChallengeQueued(
        uint256 indexed id, address indexed whistleblower, uint256 index, uint32 segment, bytes32 claimedEndHash
    );
    event RejectionDisputed(uint256 indexed id, address indexed solver);
    /// @param catchers the verifier if it rejected, else the queued whistleblowers, in order
    /// @param paidEach each catcher's jackpot share (paid into its registry stake)
    event ForcedErrorRevealed(uint256 indexed id, address[] catchers, uint256[] paidEach);
    event DisputeStarted(uint256 indexed id, uint256 indexed disputeId, address prover, address challenger);
    /// @param solverSlashed, verifierSlashed, depositSlashed the stakes this outcome slashed (0 when none)
    event DisputeResolved(
        uint256 indexed id,
        uint256 indexed disputeId,
        IPinpointGame.Outcome outcome,
        uint256 solverSlashed,
        uint256 verifierSlashed,
        uint256 depositSlashed
    );
    /// @notice A locked stake of `account` was slashed: `toWinner` to `winner`'s free stake (0 and winner 0 when
    ///         there is none), `toTreasury` to the treasury's, `burned` burned in the registry.
    event StakeSlashed(
        uint256 indexed id,
        address indexed account,
        address indexed winner,
        uint256 amount,
        uint256 toWinner,
        uint256 toTreasury,
        uint256 burned
    );
    event JackpotFunded(address indexed from, uint256 amount, uint256 jackpot);
    /// @notice An accepted settlement (`accepted` is always true). `tax` is both fees' tax, added to the jackpot.
    event TaskSettled(
        uint256 indexed id, bool accepted, uint256 solverPaid, uint256 verifierPaid, uint256 refunded, uint256 tax
    );
    /// @param slashed the solver's locked stake
    /// @param verifierPaid the fee (from the stake, and from the escrow for any shortfall) plus the winner share
    /// @param treasuryPaid, burned the rest of the slashed stake
    event TaskRejected(
        uint256 indexed id,
        address indexed solver,
        uint256 slashed,
        uint256 verifierPaid,
        uint256 treasuryPaid,
        uint256 burned,
        uint32 attempts
    );
    event TaskReopened(uint256 indexed id, uint64 claimDeadline);
    /// @notice The task is Committed again for a fresh verification of (`proofRoot`, `manifestHash`).
    event VerificationReopened(uint256 indexed id, bytes32 proofRoot, bytes32 manifestHash, uint64 deadline);
    event VerifierExcluded(uint256 indexed id, address indexed verifier);
    event TaskExpired(uint256 indexed id, Status fromStatus, uint256 refunded);

    // ---------------------------------------------------------------- state
    RoleRegistry public immutable registry;
    ProtocolConfig public immutable config;
    address public immutable treasury;
    address public immutable owner;
    IPinpointGame public game;

    uint256 public taskCount;
    uint256 public totalEscrow;
    uint256 public jackpot;

    mapping(uint256 => Task) private _tasks;
    mapping(uint256 => Challenge[]) private _challenges;
    /// @dev task id => solver => rejected on that task (then barred from claiming it again).
    mapping(uint256 => mapping(address => bool)) private _rejected;
    /// @dev task id => verifier => barred from verifying that task.
    mapping(uint256 => mapping(address => bool)) private _barred;

    constructor(address registry_, address treasury_, address config_) {
        if (registry_ == address(0) || treasury_ == address(0) || config_ == address(0)) revert ZeroAddress();
        registry = RoleRegistry(registry_);
        treasury = treasury_;
        config = ProtocolConfig(config_);
        owner = msg.sender;
    }

    /// @notice Names the dispute game (its opener must be this market). Owner only, once.
    function setGame(address game_) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (address(game) != address(0)) revert GameAlreadySet();
        if (game_ == address(0)) revert ZeroAddress();
        game = IPinpointGame(game_);
        emit GameSet(game_);
    }

    /// @notice Adds the ether sent to the jackpot (anyone).
    function fundJackpot() external payable {
        if (msg.value == 0) revert ZeroAmount();
        uint256 total = jackpot + msg.value;
        jackpot = total;
        emit JackpotFunded(msg.sender, msg.value, total);
    }

    // ---------------------------------------------------------------- submission and training

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
        uint256 required =
            solverReward > type(uint256).max - verifierReward ? type(uint256).max : solverReward + verifierReward;
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

    /// @notice A registered solver takes an open task, commits to a secret (`secretHash =
    ///         keccak256(abi.encode(secret))`) and locks `solverStake`. A solver once rejected on this task cannot
    ///         claim it again (`SolverRejected`); a reopened task whose escrow no longer covers both rewards cannot
    ///         be claimed (`EscrowExhausted`).
    function claimTask(uint256 id, bytes32 secretHash) external {
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
        Params memory p = config.params();

        t.solver = msg.sender;
        t.status = Status.Claimed;
        t.deadline = _after(t.trainingTimeout);
        t.secretHash = secretHash;
        t.claimBlock = uint64(block.number);
        t.forcedErrorBps = p.forcedErrorBps;
        t.solverLocked = p.solverStake;
        emit TaskClaimed(id, msg.sender, secretHash, p.solverStake);

        registry.lock(msg.sender, p.solverStake);
    }

    /// @notice The solver commits to its proof of learning and its schedule: checkpoint `s` is the state after
    ///         step `min(s * checkpointInterval, totalSteps)`, so `checkpointCount == ceil(totalSteps /
    ///         checkpointInterval) + 1`. `sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash,
    ///         secret))` seals the honest proof for a forced-error reveal. Needs `block.number > claimBlock + 1`:
    ///         the seed `blockhash(claimBlock + 1)` is fixed here (past 256 blocks it falls back to
    ///         `keccak256(abi.encode(id, blockhash(block.number - 1)))`).
    function commitProof(
        uint256 id,
        bytes32 proofRoot,
        bytes32 manifestHash,
        uint32 checkpointCount,
        uint64 checkpointInterval,
        uint64 totalSteps,
        bytes32 sealedHonest
    ) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Claimed);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        _requireBeforeDeadline(id, t);
        if (proofRoot == bytes32(0) || manifestHash == bytes32(0)) revert ZeroProofRoot();
        if (
            checkpointInterval == 0 || totalSteps == 0
                || checkpointCount != (uint256(totalSteps) + checkpointInterval - 1) / checkpointInterval + 1
        ) revert InvalidSchedule(checkpointCount, checkpointInterval, totalSteps);
        bytes32 seed = _seed(id, t);

        t.status = Status.Committed;
        t.proofRoot = proofRoot;
        t.manifestHash = manifestHash;
        t.checkpointCount = checkpointCount;
        t.checkpointInterval = checkpointInterval;
        t.totalSteps = totalSteps;
        t.sealedHonest = sealedHonest;
        t.seed = seed;
        t.commitBlock = uint64(block.number);
        t.deadline = _after(t.verificationTimeout);
        emit ProofCommitted(id, proofRoot, manifestHash, checkpointCount, checkpointInterval, totalSteps, seed);
    }

    // ---------------------------------------------------------------- verification

    /// @notice A registered verifier (not the solver, not barred on this task) takes a committed task, locks
    ///         `verifierStake`, and fixes the randomness that picks the segments to replay:
    ///         `blockhash(commitBlock + 1)` (so `block.number > commitBlock + 1` is needed); past 256 blocks it
    ///         falls back to `keccak256(abi.encode(id, blockhash(block.number - 1)))`, which a verifier could
    ///         grind, so a deployment keeps `verificationTimeout` below 256 block times.
    function claimVerification(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Committed);
        _requireRole(VERIFIER_ROLE);
        if (msg.sender == t.solver) revert SolverCannotVerify(id);
        if (_barred[id][msg.sender]) revert VerifierBarred(id, msg.sender);
        _requireBeforeDeadline(id, t);
        uint256 randomBlock = uint256(t.commitBlock) + 1;
        if (block.number <= randomBlock) revert RandomnessNotReady(id, uint64(randomBlock + 1));

        bytes32 randomness = blockhash(randomBlock);
        if (randomness == bytes32(0)) randomness = keccak256(abi.encode(id, blockhash(block.number - 1)));
        uint256 stake = config.params().verifierStake;

        t.verifier = msg.sender;
        t.status = Status.Verifying;
        t.randomness = randomness;
        t.verifierLocked = stake;
        // The verifier gets a full verificationTimeout to replay and post its verdict.
        t.deadline = _after(t.verificationTimeout);
        emit VerificationClaimed(id, msg.sender, randomness, stake);

        registry.lock(msg.sender, stake);
    }

    /// @notice The verifier posts its verdict; the challenge window (`challengeWindowBlocks`) and then the
    ///         reveal window (`revealWindowBlocks`) open. A rejection names the failed `segment` (below
    ///         `checkpointCount - 1`) and the non-zero end hash its replay produced; an acceptance passes 0, 0.
    /// @param distance the largest normalized distance measured, scaled by 1e18; recorded, not judged.
    function postVerdict(
        uint256 id,
        bool accepted,
        bytes32 reportHash,
        uint256 distance,
        uint32 segment,
        bytes32 replayHash
    ) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verifying);
        if (msg.sender != t.verifier) revert NotVerifier(id, msg.sender);
        _requireBeforeDeadline(id, t);
        if (
            accepted
                ? (segment != 0 || replayHash != bytes32(0))
                : (uint256(segment) + 1 >= t.checkpointCount || replayHash == bytes32(0))
        ) revert InvalidRejectionClaim(id);
        Params memory p = config.params();
        uint64 challengeEnd = uint64(block.number) + p.challengeWindowBlocks;
        uint64 revealEnd = challengeEnd + p.revealWindowBlocks;

        t.status = Status.Verified;
        t.accepted = accepted;
        t.reportHash = reportHash;
        t.distance = distance;
        t.rejectSegment = segment;
        t.rejectReplayHash = replayHash;
        t.verdictBlock = uint64(block.number);
        t.challengeEndBlock = challengeEnd;
        t.revealEndBlock = revealEnd;
        emit VerdictPosted(id, msg.sender, accepted, reportHash, distance, segment, replayHash, challengeEnd, revealEnd);
    }

    // ---------------------------------------------------------------- challenge window

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
    ) external {
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
    ) external {
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

    // ---------------------------------------------------------------- reveal window

    /// @notice The solver reveals that its published proof was a forced error (docs/disputes.md, lifecycle 7):
    ///         the secret opens `secretHash`, the coin `keccak256(abi.encode(secret, seed)) % 10000 <
    ///         forcedErrorBps` came up, `sealedHonest` opens to (honestRoot, honestManifestHash) and the honest
    ///         root differs from the published one. Catchers (the verifier if it rejected, else the queued
    ///         whistleblowers) share `min(jackpotCap, jackpot)` by weights 2^(n-1-i); a verifier that accepted is
    ///         slashed (winner: the first catcher), one that rejected is unlocked; deposits are unlocked; the
    ///         honest proof replaces the published one and the task is Committed again for a fresh verification,
    ///         the old verifier barred. The solver keeps its stake locked and is not penalised.
    function revealForcedError(uint256 id, bytes32 secret, bytes32 honestRoot, bytes32 honestManifestHash) external {
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

    // ---------------------------------------------------------------- settlement

    /// @notice Anyone moves a verified task on, after its reveal window. One step per call:
    ///         - a dispute in progress: reverts `DisputeInProgress` until the game's outcome is final, then
    ///           applies it (docs/disputes.md, "Outcomes");
    ///         - else the next queued challenge, or the filed rejection dispute, starts its game;
    ///         - else it finalises: accepted -> Settled, fees paid less tax (the tax goes to the jackpot);
    ///           rejected -> the rejection split and the task reopens.
    ///         Call it until the task has left Verified.
    function settle(uint256 id) external {
        Task storage t = _task(id);
        _requireStatus(id, t, Status.Verified);
        if (block.number <= t.revealEndBlock) revert SettlementNotReady(id, t.revealEndBlock);

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

    /// @notice Anyone expires a task whose stage deadline (seconds) has passed. The escrow (what is left of it)
    ///         goes back to the submitter. Claimed (no proof): the solver's stake is slashed (no winner).
    ///         Committed (no verifier): the solver's stake is unlocked. Verifying (no verdict): the solver's stake
    ///         is unlocked and the verifier's slashed (no winner).
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
            _slash(id, t.solver, t.solverLocked, address(0));
        } else if (from == Status.Committed) {
            registry.unlock(t.solver, t.solverLocked);
        } else if (from == Status.Verifying) {
            registry.unlock(t.solver, t.solverLocked);
            _slash(id, t.verifier, t.verifierLocked, address(0));
        }

        _pay(t.submitter, refunded);
    }

    // ---------------------------------------------------------------- views

    function getTask(uint256 id) external view returns (Task memory) {
        return _task(id);
    }

    /// @notice The whistleblower challenges of the task's current verdict, in queue order (cleared when the task
    ///         reopens or goes back to Committed).
    function challengesOf(uint256 id) external view returns (Challenge[] memory) {
        _task(id);
        return _challenges[id];
    }

    /// @notice True when `solver` was rejected on task `id` (it can then never claim that task again).
    function wasRejected(uint256 id, address solver) external view returns (bool) {
        return _rejected[id][solver];
    }

    /// @notice True when `verifier` may no longer verify task `id`.
    function isVerifierBarred(uint256 id, address verifier) external view returns (bool) {
        return _barred[id][verifier];
    }

    /// @notice The forced-error coin of the task's current attempt for `secret` (the solver's, checked against
    ///         `secretHash`). Before the commit it uses `blockhash(claimBlock + 1)` (reverts
    ///         `RandomnessNotReady` until that block exists), as commitProof will.
    function forcedErrorOf(uint256 id, bytes32 secret) external view returns (bool) {
        Task storage t = _task(id);
        if (t.status == Status.Submitted || keccak256(abi.encode(secret)) != t.secretHash) revert InvalidSecret(id);
        bytes32 seed = t.seed;
        if (seed == bytes32(0)) seed = _seed(id, t);
        return _isForced(secret, seed, t.forcedErrorBps);
    }

    /// @notice Jackpot shares of `payout` among `n` catchers: catcher i gets `payout * 2^(n-1-i) / (2^n - 1)`
    ///         (rounded down; the remainder stays in the jackpot). `n` <= 255.
    function jackpotShares(uint256 payout, uint256 n) public pure returns (uint256[] memory shares) {
        if (n > 255) revert TooManyCatchers(n);
        shares = new uint256[](n);
        if (n == 0) return shares;
        uint256 denominator = (uint256(1) << n) - 1;
        for (uint256 i = 0; i < n; i++) {
            shares[i] = _mulDiv(payout, uint256(1) << (n - 1 - i), denominator);
        }
    }

    // ---------------------------------------------------------------- internals: outcomes

    /// @dev Outcome of whistleblower challenge `nextChallenge` (prover: solver, challenger: whistleblower).
    function _applyChallengeOutcome(uint256 id, Task storage t, uint256 disputeId, IPinpointGame.Outcome outcome)
        private
    {
        Challenge[] storage queue = _challenges[id];
        uint256 index = t.nextChallenge;
        Challenge storage c = queue[index];
        address whistleblower = c.whistleblower;
        uint256 deposit = c.deposit;
        c.state = ChallengeState.Done;
        c.outcome = outcome;
        t.nextChallenge = uint8(index + 1);

        if (outcome == IPinpointGame.Outcome.ProverWon) {
            emit DisputeResolved(id, disputeId, outcome, 0, 0, deposit);
            _slash(id, whistleblower, deposit, t.solver);
        } else if (outcome == IPinpointGame.Outcome.Void) {
            emit DisputeResolved(id, disputeId, outcome, 0, 0, 0);
            registry.unlock(whistleblower, deposit);
        } else {
            _proofWrong(id, t, disputeId, outcome, index);
        }
    }

    /// @dev ChallengerWon or BothWrong on challenge `index`: the accepted proof is wrong. The solver and the
    ///      verifier that accepted it are slashed (winner: the whistleblower) and barred, the task reopens; the
    ///      whistleblower's deposit is unlocked (slashed, no winner, on BothWrong) and every later queued
    ///      whistleblower gets its deposit back.
    function _proofWrong(uint256 id, Task storage t, uint256 disputeId, IPinpointGame.Outcome outcome, uint256 index)
        private
    {
        bool bothWrong = outcome == IPinpointGame.Outcome.BothWrong;
        (address[] memory whistleblowers, uint256[] memory deposits) = _queuedFrom(id, index);
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 solverLocked = t.solverLocked;
        uint256 verifierLocked = t.verifierLocked;
        _rejected[id][solver] = true;
        _bar(id, verifier);
        emit DisputeResolved(id, disputeId, outcome, solverLocked, verifierLocked, bothWrong ? deposits[0] : 0);
        _reopen(id, t);

        _slash(id, solver, solverLocked, whistleblowers[0]);
        _slash(id, verifier, verifierLocked, whistleblowers[0]);
        if (bothWrong) _slash(id, whistleblowers[0], deposits[0], address(0));
        else registry.unlock(whistleblowers[0], deposits[0]);
        for (uint256 j = 1; j < whistleblowers.length; j++) {
            registry.unlock(whistleblowers[j], deposits[j]);
        }
    }

    /// @dev The whistleblowers and deposits of challenges `index..` of the task's queue.
    function _queuedFrom(uint256 id, uint256 index)
        private
        view
        returns (address[] memory whistleblowers, uint256[] memory deposits)
    {
        Challenge[] storage queue = _challenges[id];
        uint256 n = queue.length - index;
        whistleblowers = new address[](n);
        deposits = new uint256[](n);
        for (uint256 j = 0; j < n; j++) {
            whistleblowers[j] = queue[index + j].whistleblower;
            deposits[j] = queue[index + j].deposit;
        }
    }

    /// @dev Outcome of the solver's dispute of a rejection (prover: solver, challenger: verifier).
    function _applyRejectionOutcome(uint256 id, Task storage t, uint256 disputeId, IPinpointGame.Outcome outcome)
        private
    {
        address verifier = t.verifier;
        uint256 verifierLocked = t.verifierLocked;
        if (outcome == IPinpointGame.Outcome.ChallengerWon) {
            emit DisputeResolved(id, disputeId, outcome, t.solverLocked, 0, 0);
            _reject(id, t, true);
        } else if (outcome == IPinpointGame.Outcome.BothWrong) {
            emit DisputeResolved(id, disputeId, outcome, t.solverLocked, verifierLocked, 0);
            _reject(id, t, false);
        } else {
            // ProverWon (the verifier's stake goes to the solver) or Void (nobody is slashed): the proof is
            // verified again by someone else.
            bool proverWon = outcome == IPinpointGame.Outcome.ProverWon;
            address solver = t.solver;
            emit DisputeResolved(id, disputeId, outcome, 0, proverWon ? verifierLocked : 0, 0);
            _bar(id, verifier);
            _backToCommitted(id, t);
            if (proverWon) _slash(id, verifier, verifierLocked, solver);
            else registry.unlock(verifier, verifierLocked);
        }
    }

    // ---------------------------------------------------------------- internals: money

    /// @dev Who caught a forced error: the verifier if it rejected, else the queued whistleblowers (with their
    ///      deposits, which are empty for the verifier).
    function _catchers(uint256 id, Task storage t)
        private
        view
        returns (address[] memory catchers, uint256[] memory deposits)
    {
        if (!t.accepted) {
            catchers = new address[](1);
            catchers[0] = t.verifier;
            return (catchers, deposits);
        }
        Challenge[] storage queue = _challenges[id];
        uint256 queued = queue.length;
        catchers = new address[](queued);
        deposits = new uint256[](queued);
        for (uint256 i = 0; i < queued; i++) {
            catchers[i] = queue[i].whistleblower;
            deposits[i] = queue[i].deposit;
        }
    }

    /// @dev Takes the shares of `min(jackpotCap, jackpot)` for `n` catchers out of the jackpot.
    function _payJackpot(uint256 n) private returns (uint256[] memory paid) {
        uint256 cap = config.params().jackpotCap;
        uint256 available = jackpot;
        paid = jackpotShares(cap < available ? cap : available, n);
        uint256 total = 0;
        for (uint256 i = 0; i < n; i++) {
            total += paid[i];
        }
        jackpot = available - total;
    }

    /// @dev Accepted and undisputed (or every challenge lost): both fees less tax, the rest to the submitter.
    function _settleAccepted(uint256 id, Task storage t) private {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 taxBps = config.params().taxBps;
        uint256 solverTax = t.solverReward * taxBps / BPS;
        uint256 verifierTax = t.verifierReward * taxBps / BPS;
        uint256 solverPaid = t.solverReward - solverTax;
        uint256 verifierPaid = t.verifierReward - verifierTax;
        // No underflow: claimTask only lets a solver in while escrow >= solverReward + verifierReward, and the
        // escrow does not change between a claim and its settlement.
        uint256 refunded = t.escrow - t.solverReward - t.verifierReward;

        t.status = Status.Settled;
        totalEscrow -= t.escrow;
        jackpot += solverTax + verifierTax;
        emit TaskSettled(id, true, solverPaid, verifierPaid, refunded, solverTax + verifierTax);

        registry.unlock(solver, t.solverLocked);
        registry.unlock(verifier, t.verifierLocked);

        _pay(solver, solverPaid);
        _pay(verifier, verifierPaid);
        _pay(t.submitter, refunded);
    }

    /// @dev The rejection split: the solver's locked stake S pays the verifier's fee first (fee = min(S,
    ///      verifierReward); a shortfall verifierReward - S comes from the escrow in ether), then the rest of S is
    ///      slashed with the verifier as winner (`verifierHonest`) or no winner, in which case the verifier gets
    ///      no winner share and its own stake is slashed (no winner) instead of unlocked. The solver is barred
    ///      from the task, which reopens.
    function _reject(uint256 id, Task storage t, bool verifierHonest) private {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 slashed = t.solverLocked;
        uint256 verifierLocked = t.verifierLocked;
        uint256 reward = t.verifierReward;
        uint256 fee = slashed < reward ? slashed : reward;

        _rejected[id][solver] = true;
        if (reward != fee) {
            // No underflow: escrow >= solverReward + verifierReward >= shortfall (checked at claim).
            t.escrow -= reward - fee;
            totalEscrow -= reward - fee;
        }
        _emitRejected(id, solver, t.attempts + 1, slashed, reward, slashed - fee, verifierHonest);
        _reopen(id, t);

        if (fee != 0) registry.slash(solver, fee, verifier);
        _slash(id, solver, slashed - fee, verifierHonest ? verifier : address(0));
        if (verifierHonest) registry.unlock(verifier, verifierLocked);
        else _slash(id, verifier, verifierLocked, address(0));

        _pay(verifier, reward - fee);
    }

    function _emitRejected(
        uint256 id,
        address solver,
        uint32 attempts,
        uint256 slashed,
        uint256 reward,
        uint256 rest,
        bool hasWinner
    ) private {
        (uint256 toWinner, uint256 toTreasury, uint256 burned) = _split(rest, hasWinner);
        emit TaskRejected(id, solver, slashed, reward + toWinner, toTreasury, burned, attempts);
    }

    /// @dev Slashes `amount` of `account`'s locked stake: the winner share to `winner` (the treasury when there
    ///      is no winner), the treasury share to the treasury, the rest (rounding included) burned.
    function _slash(uint256 id, address account, uint256 amount, address winner) private {
        if (amount == 0) return;
        (uint256 toWinner, uint256 toTreasury, uint256 burned) = _split(amount, winner != address(0));
        emit StakeSlashed(id, account, winner, amount, toWinner, toTreasury, burned);
        if (toWinner != 0) registry.slash(account, toWinner, winner);
        if (toTreasury != 0) registry.slash(account, toTreasury, treasury);
        if (burned != 0) registry.burn(account, burned);
    }

    function _split(uint256 amount, bool hasWinner)
        private
        view
        returns (uint256 toWinner, uint256 toTreasury, uint256 burned)
    {
        Params memory p = config.params();
        toWinner = amount * p.slashWinnerBps / BPS;
        toTreasury = amount * p.slashTreasuryBps / BPS;
        burned = amount - toWinner - toTreasury;
        if (!hasWinner) {
            toTreasury += toWinner;
            toWinner = 0;
        }
    }

    // ---------------------------------------------------------------- internals: task state

    /// @dev Opens a game over `segment` (prover: the solver) and records it as the task's active dispute.
    function _openGame(
        uint256 id,
        Task storage t,
        address challenger,
        bool openerIsProver,
        address excluded,
        uint32 segment,
        bytes32 startHash,
        bytes32 proverEndHash,
        bytes32 challengerEndHash
    ) private returns (uint256 disputeId) {
        IPinpointGame g = game;
        if (address(g) == address(0)) revert GameNotSet();
        uint256 interval = t.checkpointInterval;
        uint256 end = (uint256(segment) + 1) * interval;
        if (end > t.totalSteps) end = t.totalSteps;
        disputeId = g.open(
            id,
            t.solver,
            challenger,
            openerIsProver,
            excluded,
            uint64(segment * interval),
            uint64(end),
            startHash,
            proverEndHash,
            challengerEndHash
        );
        t.activeDispute = disputeId;
        emit DisputeStarted(id, disputeId, t.solver, challenger);
    }

    /// @dev Back to Submitted for another solver: every field of the attempt is cleared, the escrow kept.
    function _reopen(uint256 id, Task storage t) private {
        uint32 attempts = t.attempts + 1;
        uint64 claimDeadline = _after(t.claimTimeout);
        // Clear the attempt's fields, keeping the submission's (the task keeps its escrow).
        address submitter = t.submitter;
        bytes32 specHash = t.specHash;
        uint256 escrow = t.escrow;
        uint256 solverReward = t.solverReward;
        uint256 verifierReward = t.verifierReward;
        uint64 claimTimeout = t.claimTimeout;
        uint64 trainingTimeout = t.trainingTimeout;
        uint64 verificationTimeout = t.verificationTimeout;
        uint64 submittedAt = t.submittedAt;
        delete _tasks[id];
        t.submitter = submitter;
        t.status = Status.Submitted;
        t.attempts = attempts;
        t.specHash = specHash;
        t.escrow = escrow;
        t.solverReward = solverReward;
        t.verifierReward = verifierReward;
        t.claimTimeout = claimTimeout;
        t.trainingTimeout = trainingTimeout;
        t.verificationTimeout = verificationTimeout;
        t.submittedAt = submittedAt;
        t.deadline = claimDeadline;
        delete _challenges[id];
        emit TaskReopened(id, claimDeadline);
    }

    /// @dev Back to Committed (the solver's claim, secret, proof and stake stay) for a fresh verification.
    function _backToCommitted(uint256 id, Task storage t) private {
        uint64 deadline = _after(t.verificationTimeout);
        t.status = Status.Committed;
        t.verifier = address(0);
        t.accepted = false;
        t.commitBlock = uint64(block.number);
        t.deadline = deadline;
        t.randomness = bytes32(0);
        t.reportHash = bytes32(0);
        t.distance = 0;
        t.verdictBlock = 0;
        t.challengeEndBlock = 0;
        t.revealEndBlock = 0;
        t.rejectSegment = 0;
        t.disputeFiled = false;
        t.nextChallenge = 0;
        t.rejectReplayHash = bytes32(0);
        t.rejectStartHash = bytes32(0);
        t.rejectEndHash = bytes32(0);
        t.verifierLocked = 0;
        t.activeDispute = 0;
        delete _challenges[id];
        emit VerificationReopened(id, t.proofRoot, t.manifestHash, deadline);
    }

    function _bar(uint256 id, address verifier) private {
        _barred[id][verifier] = true;
        emit VerifierExcluded(id, verifier);
    }

    // ---------------------------------------------------------------- internals: checks

    /// @dev Merkle proofs that `startHash`/`endHash` are checkpoints `segment`/`segment + 1` of `proofRoot`.
    function _checkSegment(
        uint256 id,
        Task storage t,
        uint32 segment,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) private view {
        uint256 count = t.checkpointCount;
        if (uint256(segment) + 1 >= count) revert InvalidSegment(id, segment);
        bytes32 root = t.proofRoot;
        if (!ProofMerkle.verify(root, startHash, segment, count, startProof)) revert InvalidMerkleProof(id, segment);
        if (!ProofMerkle.verify(root, endHash, uint256(segment) + 1, count, endProof)) {
            revert InvalidMerkleProof(id, uint256(segment) + 1);
        }
    }

    function _requireChallengeWindow(uint256 id, Task storage t) private view {
        if (block.number > t.challengeEndBlock) revert ChallengeWindowClosed(id, t.challengeEndBlock);
    }

    /// @dev blockhash(claimBlock + 1), or past 256 blocks the fallback claimVerification uses.
    function _seed(uint256 id, Task storage t) private view returns (bytes32 seed) {
        uint256 seedBlock = uint256(t.claimBlock) + 1;
        if (block.number <= seedBlock) revert RandomnessNotReady(id, uint64(seedBlock + 1));
        seed = blockhash(seedBlock);
        if (seed == bytes32(0)) seed = keccak256(abi.encode(id, blockhash(block.number - 1)));
    }

    function _isForced(bytes32 secret, bytes32 seed, uint16 forcedErrorBps) private pure returns (bool) {
        return uint256(keccak256(abi.encode(secret, seed))) % BPS < forcedErrorBps;
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

    /// @dev floor(x * y / denominator) with a 512-bit intermediate product (Remco Bloemen's method, as in
    ///      OpenZeppelin's Math.mulDiv, MIT). The caller guarantees the result fits (here it is <= x).
    function _mulDiv(uint256 x, uint256 y, uint256 denominator) private pure returns (uint256 result) {
        unchecked {
            uint256 prod0 = x * y;
            uint256 prod1;
            assembly {
                let mm := mulmod(x, y, not(0))
                prod1 := sub(sub(mm, prod0), lt(mm, prod0))
            }
            if (prod1 == 0) return prod0 / denominator;
            uint256 remainder;
            assembly {
                remainder := mulmod(x, y, denominator)
                prod1 := sub(prod1, gt(remainder, prod0))
                prod0 := sub(prod0, remainder)
            }
            uint256 twos = denominator & (0 - denominator);
            assembly {
                denominator := div(denominator, twos)
                prod0 := div(prod0, twos)
                twos := add(div(sub(0, twos), twos), 1)
            }
            prod0 |= prod1 * twos;
            uint256 inverse = (3 * denominator) ^ 2;
            inverse *= 2 - denominator * inverse;
            inverse *= 2 - denominator * inverse;
            inverse *= 2 - denominator * inverse;
            inverse *= 2 - denominator * inverse;
            inverse *= 2 - denominator * inverse;
            inverse *= 2 - denominator * inverse;
            result = prod0 * inverse;
        }
    }
}
