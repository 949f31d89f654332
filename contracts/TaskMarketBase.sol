// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry} from "./RoleRegistry.sol";
import {ProtocolConfig, Params} from "./ProtocolConfig.sol";
import {IPinpointGame} from "./IPinpointGame.sol";
import {ProofMerkle} from "./ProofMerkle.sol";
import {SolverBook} from "./SolverBook.sol";

/// @title TaskMarketBase
/// @notice What TaskMarket and TaskMarketDisputes share: the task model, errors, events, state and internal
///         helpers. TaskMarket runs TaskMarketDisputes' code on its own storage (DELEGATECALL), so both must have
///         exactly this storage layout: neither declares a state variable of its own (immutables live in code).
/// @dev See TaskMarket for the rules of money, deadlines and payments.
abstract contract TaskMarketBase {
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

    /// Committed: only the commitment is known (challenge window); Queued: opened, waiting to be played.
    enum ChallengeState {
        Committed,
        Queued,
        Playing,
        Done
    }

    /// @dev `escrow` is the ether held for the task: msg.value at submission, less any verifier-fee shortfall
    ///      paid out on a rejection. `attempts` counts the times the task reopened. A reopening clears every
    ///      field of the attempt (solver, verifier, secret, price, proof, verdict, stakes, disputes);
    ///      a return to Committed (forced-error reveal, a won or void rejection dispute) clears the verification
    ///      fields only. `deadline` is the current stage's (seconds), and the settlement time once Settled.
    ///
    ///      A task is not kept in storage: the market stores one hash of its state per task (`_taskHashes`) and
    ///      every call that reads or changes a task takes the state in calldata (`state`, the 15 words of `_pack`),
    ///      checked against that hash (`StaleTask`); a call that changes it stores the new state's hash and emits the
    ///      state in `TaskState`, where the next caller reads it (docs/market.md, "What a task stores"). The words are
    ///      laid out by the stage that first writes them (word 0-3 the submission, 4-6 the claim, 7 the commit, 8
    ///      `fixSeed`, 9 the verification claim, 10 the verdict, 11-14 the disputes): amounts are uint128 (stakes
    ///      uint96, beside an address), each narrowing checked (`AmountTooLarge`); timeouts are at most
    ///      ProtocolConfig.MAX_TIMEOUT (uint32), deadlines (unix seconds) and the claim and commit blocks uint40, which
    ///      no chain's clock or height reaches (2^40 seconds is 34,000 years; 2^40 blocks, 34,000 years of one-second
    ///      blocks), steps and interval bounded by MAX_STEPS (2^40 - 1). `solverReward` and `verifierReward` are not
    ///      in the state: they follow from the price and the schedule (`_rewards`), and `getTask` fills them in.
    struct Task {
        // word 0 (submission)
        address submitter;
        Status status;
        bool accepted;
        uint32 attempts;
        /// ProtocolConfig.marketParams().verifierFeeBps at the submission (the escrow covers this fee)
        uint16 verifierFeeBps;
        /// the task's weight in the SolverBook's demand (basis points of a slot; 0 until counted: see SolverBook)
        uint16 demandWeight;
        /// ProtocolConfig.forcedErrorBps at the claim (the coin's odds for this attempt)
        uint16 forcedErrorBps;
        // The spec hash, the manifest hash, the verification randomness, the report hash and the verdict's distance
        // are not in the state: nothing on chain reads them again, and each is fixed where readers find it (docs/market.md,
        // "What a task stores"): the spec hash in TaskSubmitted, the manifest hash in ProofCommitted (or, after a
        // forced error's reveal, in VerificationReopened), the randomness as the hash of block commitBlock + 1
        // (VerificationClaimed too), the report hash and the distance in the VerdictPosted of block verdictBlock.
        // word 1: the escrow, the most the submitter pays per work unit
        uint128 escrow;
        uint128 maxPrice;
        // word 2: the task's estimated work (docs/market.md, section 1) and the steps of its range; the task whose
        // final checkpoint this one starts from (0: none)
        uint64 workUnits;
        uint64 maxSteps;
        uint64 parentId;
        uint64 submittedAt;
        // word 3: the stage timeouts (seconds), the current stage's deadline, the blocks of the claim and the commit,
        // and the steps the commit trained (word 2 holds the range they are checked against)
        uint32 claimTimeout;
        uint32 trainingTimeout;
        uint32 verificationTimeout;
        uint40 deadline;
        uint40 claimBlock;
        uint40 commitBlock;
        uint40 totalSteps;
        // word 4 (claim)
        address solver;
        uint96 solverLocked;
        // word 5: the price fixed at the claim (0 before it), the schedule's checkpoints, the dispute flags
        uint128 price;
        uint32 checkpointCount;
        bool forcedRevealed;
        /// the solver filed a dispute of the rejection (played at settle)
        bool disputeFiled;
        /// index of the next whistleblower challenge to play (or the one playing)
        uint8 nextChallenge;
        /// a rejection's failed segment
        uint32 rejectSegment;
        uint40 checkpointInterval;
        /// word 6, the forced-error commitment: keccak256(abi.encode(secret)) from claimTask; from commitProof
        /// keccak256(abi.encode(that hash, seed, sealedHonest)), where the seed is blockhash(claimBlock + 1) and
        /// sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash, secret)). The seed and the seal are
        /// in ProofCommitted and the secret's hash in TaskClaimed, where readers take them (docs/market.md, "What
        /// a task stores"); a reveal opens the commitment with them.
        bytes32 secretHash;
        // word 7 (commit)
        bytes32 proofRoot;
        /// word 8: the seed as `fixSeed` recorded it before the commit (a training that outlasts the EVM's 256
        /// blocks); 0 otherwise, the commit folding the seed into the commitment instead
        bytes32 seed;
        // word 9 (verification claim; its randomness, blockhash(commitBlock + 1), picks the segments a verifier
        // replays)
        address verifier;
        uint96 verifierLocked;
        // word 10 (verdict): end of the challenge, open and reveal windows
        uint64 verdictBlock;
        uint64 challengeEndBlock;
        uint64 openEndBlock;
        uint64 revealEndBlock;
        // words 11-14
        /// the verifier's replayed end hash of a rejection (0 if accepted: not written)
        bytes32 rejectReplayHash;
        /// the committed checkpoints around the rejected segment (proven by disputeRejection)
        bytes32 rejectStartHash;
        bytes32 rejectEndHash;
        /// the PinpointGame dispute being played (0: none)
        uint256 activeDispute;
        /// price * workUnits * (totalSteps, or maxSteps before the commit) / maxSteps and verifierFeeBps of it
        /// (0 before a claim). Not in the state: `_rewards` computes them, `getTask` fills them in.
        uint256 solverReward;
        uint256 verifierReward;
    }

    /// @notice Where a task with a parent starts (commitProof; ignored without a parent): `proof` proves that
    ///         checkpoint 0 of the committed proof is `checkpoint`, `parentFinalProof` that the parent's last
    ///         checkpoint is the same.
    struct Start {
        bytes32 checkpoint;
        bytes32[] proof;
        bytes32[] parentFinalProof;
    }

    struct Challenge {
        address whistleblower;
        uint32 segment;
        ChallengeState state;
        IPinpointGame.Outcome outcome;
        /// keccak256(abi.encode(id, whistleblower, segment, claimedEndHash, salt)), posted in the challenge window
        bytes32 commitment;
        /// the whistleblower's replayed end hash of the segment
        bytes32 claimedEndHash;
        /// the committed checkpoints `segment` and `segment + 1`
        bytes32 startHash;
        bytes32 endHash;
        /// challengeDeposit locked for this challenge
        uint256 deposit;
        uint256 disputeId;
    }

    uint256 internal constant BPS = 10000;
    /// @notice Words of a task's state (`_pack`), and of a task with its parent's state after it.
    uint256 internal constant STATE_WORDS = 15;

    // ---------------------------------------------------------------- errors
    error ZeroAddress();
    error ZeroAmount();
    error NotOwner(address caller);
    error GameAlreadySet();
    error GameNotSet();
    error InsufficientEscrow(uint256 provided, uint256 required);
    error ZeroSpecHash();
    error ForeignParent(uint256 parentId, address caller);
    error ParentNotSettled(uint256 id, uint256 parentId);
    error ParentStoppedEarly(uint256 id, uint256 parentId);
    error TaskNotFound(uint256 id);
    /// @notice `state` is not the task's current state (its hash is not the one stored): read the task's last
    ///         TaskState event again. A parent task's state that is missing or stale reverts with the parent's id.
    error StaleTask(uint256 id);
    error InvalidStatus(uint256 id, Status current);
    error NotRegistered(address account, uint8 role);
    error DeadlinePassed(uint256 id, uint64 deadline);
    error NotSolver(uint256 id, address caller);
    error ZeroProofRoot();
    error InvalidSchedule(uint32 checkpointCount, uint64 checkpointInterval, uint64 totalSteps);
    error SolverCannotVerify(uint256 id);
    error RandomnessNotReady(uint256 id, uint64 readyAtBlock);
    /// @notice The block hash a draw needs is older than the 256 blocks the EVM keeps: the draw was not fixed in
    ///         time (the seed: the claim times out; the verification randomness: `renewRandomness`).
    error RandomnessExpired(uint256 id, uint64 lastBlock);
    error SeedAlreadyFixed(uint256 id);
    error RandomnessNotExpired(uint256 id, uint64 lastBlock);
    error NotVerifier(uint256 id, address caller);
    error VerifierBarred(uint256 id, address verifier);
    error InvalidRejectionClaim(uint256 id);
    error DeadlineNotReached(uint256 id, uint64 deadline);
    error NotExpirable(uint256 id, Status current);
    error SolverRejected(uint256 id, address solver);
    error EscrowExhausted(uint256 id, uint256 escrow, uint256 required);
    error TransferFailed(address to, uint256 amount);
    error NothingToWithdraw(address account);
    error WrongVerdict(uint256 id, bool accepted);
    error PartyCannotChallenge(uint256 id, address caller);
    error ChallengeWindowClosed(uint256 id, uint64 endBlock);
    error InvalidChallengeClaim(uint256 id);
    error InvalidSegment(uint256 id, uint32 segment);
    error InvalidMerkleProof(uint256 id, uint256 index);
    error ChallengeQueueFull(uint256 id, uint8 maxChallengers);
    error AlreadyChallenged(uint256 id, address whistleblower);
    error ZeroCommitment(uint256 id);
    error NotCommitted(uint256 id, address whistleblower);
    error AlreadyOpened(uint256 id, address whistleblower);
    error CommitmentMismatch(uint256 id, address whistleblower);
    error OutsideOpenWindow(uint256 id, uint64 fromBlock, uint64 toBlock);
    error DisputeAlreadyFiled(uint256 id);
    error OutsideRevealWindow(uint256 id, uint64 fromBlock, uint64 toBlock);
    error AlreadyRevealed(uint256 id);
    /// @notice The secret does not open the task's commitment: its hash before the commit; after it, the secret's
    ///         hash, the seed and the sealed honest proof together.
    error InvalidSecret(uint256 id);
    error NotForcedError(uint256 id);
    error HonestRootUnchanged(uint256 id);
    error SettlementNotReady(uint256 id, uint64 afterBlock);
    error DisputeInProgress(uint256 id, uint256 disputeId);
    error TooManyCatchers(uint256 n);
    error DisputesMismatch(address disputes);
    // Declared again here (same signatures as RoleRegistry's) so that this contract's ABI can decode the
    // registry errors that bubble up through the calls that lock, unlock, slash or burn stake.
    error InsufficientFreeStake(uint256 available, uint256 requested);
    error InsufficientLockedStake(uint256 locked, uint256 requested);
    error NotMarket();
    // Likewise the SolverBook's (submission terms and claims).
    error NotListed(address solver);
    error AtCapacity(address solver, uint32 capacity);
    error AskAbovePrice(address solver, uint256 ask, uint256 price);
    error PriceAboveMax(uint256 price, uint256 maxPrice);
    error InvalidWorkUnits(uint64 workUnits, uint64 maxWorkUnits);
    error InvalidMaxSteps(uint64 maxSteps, uint64 limit);
    error MaxPriceBelowFloor(uint256 maxPrice, uint256 priceFloor);
    error InvalidTimeout();
    /// @notice An amount does not fit the bits the task packs it in (uint128 for ether, uint96 for a stake).
    error AmountTooLarge(uint256 amount, uint8 bits);

    // ---------------------------------------------------------------- events
    /// @notice The task's state after this transaction: what the next call on the task passes as `state` (the
    ///         last TaskState of the task's id is its current state; `getTask` decodes it).
    event TaskState(uint256 indexed id, bytes32[15] state);
    event GameSet(address game);
    event TaskSubmitted(
        uint256 indexed id,
        address indexed submitter,
        bytes32 specHash,
        uint256 escrow,
        uint64 workUnits,
        uint64 maxSteps,
        uint256 maxPrice,
        uint256 parentId
    );
    /// @param stake the solver stake locked (snapshot of ProtocolConfig.solverStake)
    /// @param price the SolverBook's price at the claim (wei per work unit), fixed for this attempt
    event TaskClaimed(uint256 indexed id, address indexed solver, bytes32 secretHash, uint256 stake, uint256 price);
    /// @notice A claimed task passed its training deadline without a proof: `slashed` of the solver's locked stake
    ///         (timeoutSlashBps) was slashed with no winner, the rest unlocked; the task reopens (TaskReopened).
    event ClaimTimedOut(uint256 indexed id, address indexed solver, uint256 slashed);
    event ProofCommitted(
        uint256 indexed id,
        bytes32 proofRoot,
        bytes32 manifestHash,
        uint32 checkpointCount,
        uint64 checkpointInterval,
        uint64 totalSteps,
        bytes32 seed,
        bytes32 sealedHonest
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
        uint64 openEndBlock,
        uint64 revealEndBlock
    );
    /// @param sealedClaim the claim sealed for its own whistleblower (ignored here: it lets a restarted
    ///        whistleblower read back what it committed to, docs/disputes.md "Commit, then open")
    event ChallengeCommitted(
        uint256 indexed id, address indexed whistleblower, uint256 index, bytes32 commitment, bytes sealedClaim
    );
    /// @notice A committed challenge was opened: it is queued to be played at settle, in commit order.
    event ChallengeQueued(
        uint256 indexed id, address indexed whistleblower, uint256 index, uint32 segment, bytes32 claimedEndHash
    );
    event RejectionDisputed(uint256 indexed id, address indexed solver);
    /// @notice A challenge committed and never opened: its deposit is slashed with no winner.
    event ChallengeForfeited(uint256 indexed id, address indexed whistleblower, uint256 index, uint256 deposit);
    /// @param catchers the verifier if it rejected, else the whistleblowers that opened their challenges, in order
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
    /// @param fromEscrow the part of the fee the escrow paid (the shortfall of the stake), in ether
    event TaskRejected(
        uint256 indexed id,
        address indexed solver,
        uint256 slashed,
        uint256 verifierPaid,
        uint256 treasuryPaid,
        uint256 burned,
        uint256 fromEscrow,
        uint32 attempts
    );
    event TaskReopened(uint256 indexed id, uint64 claimDeadline);
    /// @notice The forced-error seed of the current claim, `blockhash(claimBlock + 1)`, was recorded before the
    ///         EVM forgets that hash (a training longer than 256 blocks needs this before its commit).
    event SeedFixed(uint256 indexed id, bytes32 seed);
    /// @notice Nobody claimed the verification while `blockhash(commitBlock + 1)` was readable: the randomness now
    ///         comes from the block after `commitBlock` (this block), which no caller can know when it calls.
    event RandomnessRenewed(uint256 indexed id, uint64 commitBlock);
    /// @notice The task is Committed again for a fresh verification of `proofRoot`: the proof it had (`manifestHash`
    ///         0), or the honest one a forced error's reveal put in its place (`manifestHash` that proof's manifest).
    event VerificationReopened(uint256 indexed id, bytes32 proofRoot, bytes32 manifestHash, uint64 deadline);
    event VerifierExcluded(uint256 indexed id, address indexed verifier);
    event TaskExpired(uint256 indexed id, Status fromStatus, uint256 refunded);
    /// @notice `amount` was credited to `account` (a fee, a refund, a rejection's shortfall): it is withdrawn with
    ///         `withdraw`, so no recipient can block anyone else's settlement.
    event Credited(address indexed account, uint256 amount, uint256 balance);
    /// @notice `account` withdrew its whole credit, `amount`, to `to`.
    event CreditWithdrawn(address indexed account, address indexed to, uint256 amount);

    // ---------------------------------------------------------------- state
    RoleRegistry public immutable registry;
    ProtocolConfig public immutable config;
    address public immutable treasury;
    address public immutable owner;
    /// @notice The posted price, the solvers' offers and the submission terms (its market must be this one).
    SolverBook public immutable book;
    // The counters are packed (docs/benchmarks.md, "Gas of the honest lifecycle"): the task count beside the game
    // (set at deployment, so the first submission rewrites a slot instead of opening one), the escrow beside the
    // jackpot. uint128 holds any amount of ether there is (every addition is checked).
    IPinpointGame public game;
    uint64 public taskCount;
    uint128 public totalEscrow;
    uint128 public jackpot;
    /// @notice The sum of every account's `creditOf`: ether the market holds for withdrawal.
    uint128 public totalCredit;

    /// @dev keccak256(abi.encodePacked(_pack(task))) of each task's current state (0: no such task).
    mapping(uint256 => bytes32) internal _taskHashes;
    mapping(uint256 => Challenge[]) internal _challenges;
    /// @dev task id => solver => rejected on that task (then barred from claiming it again).
    mapping(uint256 => mapping(address => bool)) internal _rejected;
    /// @dev task id => verifier => barred from verifying that task.
    mapping(uint256 => mapping(address => bool)) internal _barred;
    /// @dev account => ether credited to it and not yet withdrawn.
    mapping(address => uint256) internal _credits;

    constructor(address registry_, address treasury_, address config_, address book_) {
        if (registry_ == address(0) || treasury_ == address(0) || config_ == address(0) || book_ == address(0)) {
            revert ZeroAddress();
        }
        registry = RoleRegistry(registry_);
        treasury = treasury_;
        config = ProtocolConfig(config_);
        book = SolverBook(book_);
        owner = msg.sender;
    }

    // ---------------------------------------------------------------- internals: outcomes

    /// @dev Outcome of whistleblower challenge `nextChallenge` (prover: solver, challenger: whistleblower).
    function _applyChallengeOutcome(uint256 id, Task memory t, uint256 disputeId, IPinpointGame.Outcome outcome)
        internal
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
    ///      whistleblower's deposit is unlocked (slashed, no winner, on BothWrong), every later opened challenge
    ///      gets its deposit back and every later one never opened forfeits it.
    function _proofWrong(uint256 id, Task memory t, uint256 disputeId, IPinpointGame.Outcome outcome, uint256 index)
        internal
    {
        bool bothWrong = outcome == IPinpointGame.Outcome.BothWrong;
        _forfeitUnopened(id, index + 1);
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
            if (deposits[j] != 0) registry.unlock(whistleblowers[j], deposits[j]);
        }
    }

    /// @dev Slashes, with no winner, the deposit of every challenge from `from` on that was committed and never
    ///      opened (it is Done after): a commitment nobody opens must not be free, or it would hold a queue seat.
    function _forfeitUnopened(uint256 id, uint256 from) internal {
        Challenge[] storage queue = _challenges[id];
        uint256 count = queue.length;
        for (uint256 i = from; i < count; i++) {
            Challenge storage c = queue[i];
            if (c.state != ChallengeState.Committed) continue;
            c.state = ChallengeState.Done;
            emit ChallengeForfeited(id, c.whistleblower, i, c.deposit);
            _slash(id, c.whistleblower, c.deposit, address(0));
        }
    }

    /// @dev The whistleblowers and deposits of challenges `index..` of the task's queue (`index` is the one just
    ///      played; deposit 0 for a later one already Done: a forfeited one).
    function _queuedFrom(uint256 id, uint256 index)
        internal
        view
        returns (address[] memory whistleblowers, uint256[] memory deposits)
    {
        Challenge[] storage queue = _challenges[id];
        uint256 n = queue.length - index;
        whistleblowers = new address[](n);
        deposits = new uint256[](n);
        for (uint256 j = 0; j < n; j++) {
            Challenge storage c = queue[index + j];
            whistleblowers[j] = c.whistleblower;
            deposits[j] = j != 0 && c.state == ChallengeState.Done ? 0 : c.deposit;
        }
    }

    /// @dev Outcome of the solver's dispute of a rejection (prover: solver, challenger: verifier).
    function _applyRejectionOutcome(uint256 id, Task memory t, uint256 disputeId, IPinpointGame.Outcome outcome)
        internal
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
            _backToCommitted(id, t, bytes32(0));
            if (proverWon) _slash(id, verifier, verifierLocked, solver);
            else registry.unlock(verifier, verifierLocked);
        }
    }

    // ---------------------------------------------------------------- internals: money

    /// @dev Who caught a forced error: the verifier if it rejected, else the whistleblowers that opened their
    ///      challenges, in commit order (with their deposits, which are empty for the verifier). Call it after
    ///      `_forfeitUnopened`: only opened challenges (Queued) count.
    function _catchers(uint256 id, Task memory t)
        internal
        view
        returns (address[] memory catchers, uint256[] memory deposits)
    {
        if (!t.accepted) {
            catchers = new address[](1);
            catchers[0] = t.verifier;
            return (catchers, deposits);
        }
        Challenge[] storage queue = _challenges[id];
        uint256 count = queue.length;
        uint256 opened = 0;
        for (uint256 i = 0; i < count; i++) {
            if (queue[i].state == ChallengeState.Queued) opened++;
        }
        catchers = new address[](opened);
        deposits = new uint256[](opened);
        opened = 0;
        for (uint256 i = 0; i < count; i++) {
            Challenge storage c = queue[i];
            if (c.state != ChallengeState.Queued) continue;
            catchers[opened] = c.whistleblower;
            deposits[opened] = c.deposit;
            opened++;
        }
    }

    /// @dev Takes the shares of `min(jackpotCap, jackpot)` for `n` catchers out of the jackpot.
    function _payJackpot(uint256 n) internal returns (uint256[] memory paid) {
        uint256 cap = config.params().jackpotCap;
        uint256 available = jackpot;
        paid = _jackpotShares(cap < available ? cap : available, n);
        uint256 total = 0;
        for (uint256 i = 0; i < n; i++) {
            total += paid[i];
        }
        jackpot = uint128(available - total);
    }

    /// @dev Accepted and undisputed (or every challenge lost): both fees less tax, the rest to the submitter.
    function _settleAccepted(uint256 id, Task memory t) internal {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 taxBps = config.taxBps();
        (uint256 solverReward, uint256 verifierReward) = _rewards(t);
        uint256 escrow = t.escrow;
        uint256 solverTax = solverReward * taxBps / BPS;
        uint256 verifierTax = verifierReward * taxBps / BPS;
        uint256 solverPaid = solverReward - solverTax;
        uint256 verifierPaid = verifierReward - verifierTax;
        // No underflow: claimTask only lets a solver in while escrow >= solverReward + verifierReward for the whole
        // range, the commit only lowers them, and the escrow does not change between a claim and its settlement.
        uint256 refunded = escrow - solverReward - verifierReward;

        t.status = Status.Settled;
        // The settlement time: a child's claim deadline counts from it.
        t.deadline = uint40(block.timestamp);
        totalEscrow -= uint128(escrow);
        // No truncation: the tax is part of the escrow, a uint128.
        jackpot += uint128(solverTax + verifierTax);
        emit TaskSettled(id, true, solverPaid, verifierPaid, refunded, solverTax + verifierTax);

        book.onRelease(solver, true, t.demandWeight);
        registry.unlock(solver, t.solverLocked);
        registry.unlock(verifier, t.verifierLocked);

        _credit(solver, solverPaid);
        _credit(verifier, verifierPaid);
        _credit(t.submitter, refunded);
    }

    /// @dev The rejection split: the solver's locked stake S pays the verifier's fee first (fee = min(S,
    ///      verifierReward); a shortfall verifierReward - S comes from the escrow in ether), then the rest of S is
    ///      slashed with the verifier as winner (`verifierHonest`) or no winner, in which case the verifier gets
    ///      no winner share and its own stake is slashed (no winner) instead of unlocked. The solver is barred
    ///      from the task, which reopens.
    function _reject(uint256 id, Task memory t, bool verifierHonest) internal {
        address solver = t.solver;
        address verifier = t.verifier;
        uint256 slashed = t.solverLocked;
        uint256 verifierLocked = t.verifierLocked;
        (, uint256 reward) = _rewards(t);
        uint256 fee = slashed < reward ? slashed : reward;

        _rejected[id][solver] = true;
        if (reward != fee) {
            // No underflow: escrow >= solverReward + verifierReward >= shortfall (checked at claim).
            t.escrow -= uint128(reward - fee);
            totalEscrow -= uint128(reward - fee);
        }
        _emitRejected(id, t, fee, verifierHonest);
        _reopen(id, t);

        if (fee != 0) registry.slash(solver, fee, verifier);
        _slash(id, solver, slashed - fee, verifierHonest ? verifier : address(0));
        if (verifierHonest) registry.unlock(verifier, verifierLocked);
        else _slash(id, verifier, verifierLocked, address(0));

        _credit(verifier, reward - fee);
    }

    /// @dev TaskRejected for the task's current attempt, whose fee `fee` came from the stake (the rest of the
    ///      verifier's reward from the escrow).
    function _emitRejected(uint256 id, Task memory t, uint256 fee, bool hasWinner) internal {
        uint256 slashed = t.solverLocked;
        (, uint256 reward) = _rewards(t);
        (uint256 toWinner, uint256 toTreasury, uint256 burned) = _split(slashed - fee, hasWinner);
        emit TaskRejected(id, t.solver, slashed, reward + toWinner, toTreasury, burned, reward - fee, t.attempts + 1);
    }

    /// @dev Slashes `amount` of `account`'s locked stake: the winner share to `winner` (the treasury when there
    ///      is no winner), the treasury share to the treasury, the rest (rounding included) burned.
    function _slash(uint256 id, address account, uint256 amount, address winner) internal {
        if (amount == 0) return;
        (uint256 toWinner, uint256 toTreasury, uint256 burned) = _split(amount, winner != address(0));
        emit StakeSlashed(id, account, winner, amount, toWinner, toTreasury, burned);
        if (toWinner != 0) registry.slash(account, toWinner, winner);
        if (toTreasury != 0) registry.slash(account, toTreasury, treasury);
        if (burned != 0) registry.burn(account, burned);
    }

    function _split(uint256 amount, bool hasWinner)
        internal
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

    /// @notice Jackpot shares of `payout` among `n` catchers: catcher i gets `payout * 2^(n-1-i) / (2^n - 1)`
    ///         (rounded down; the remainder stays in the jackpot). `n` <= 255.
    function _jackpotShares(uint256 payout, uint256 n) internal pure returns (uint256[] memory shares) {
        if (n > 255) revert TooManyCatchers(n);
        shares = new uint256[](n);
        if (n == 0) return shares;
        uint256 denominator = (uint256(1) << n) - 1;
        for (uint256 i = 0; i < n; i++) {
            shares[i] = _mulDiv(payout, uint256(1) << (n - 1 - i), denominator);
        }
    }

    // ---------------------------------------------------------------- internals: task state

    /// @dev Opens a game over `segment` (prover: the solver) and records it as the task's active dispute.
    function _openGame(
        uint256 id,
        Task memory t,
        address challenger,
        bool openerIsProver,
        address excluded,
        uint32 segment,
        bytes32 startHash,
        bytes32 proverEndHash,
        bytes32 challengerEndHash
    ) internal returns (uint256 disputeId) {
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

    /// @dev Back to Submitted for another solver: the solver's slot in the book is released (not done), every
    ///      field of the attempt is cleared (price and rewards included), the submission's are kept (escrow too).
    function _reopen(uint256 id, Task memory t) internal {
        book.onRelease(t.solver, false, 0);
        uint40 claimDeadline = _after(t.claimTimeout);
        // Words 0-3 hold the submission, with the attempt's status, odds, blocks and steps beside it; every later
        // word belongs to the attempt alone.
        t.status = Status.Submitted;
        t.attempts += 1;
        t.forcedErrorBps = 0;
        t.deadline = claimDeadline;
        t.claimBlock = 0;
        t.commitBlock = 0;
        t.totalSteps = 0;
        _clearAttempt(t);
        delete _challenges[id];
        emit TaskReopened(id, claimDeadline);
    }

    /// @dev Zeroes words 4-14 of a task's state and its verdict (every field the attempt wrote).
    function _clearAttempt(Task memory t) private pure {
        t.solver = address(0);
        t.solverLocked = 0;
        t.price = 0;
        t.checkpointCount = 0;
        t.forcedRevealed = false;
        t.checkpointInterval = 0;
        t.secretHash = bytes32(0);
        t.proofRoot = bytes32(0);
        t.seed = bytes32(0);
        _clearVerification(t);
    }

    /// @dev Zeroes what a verification wrote: the verifier and its stake, the verdict, its windows and the disputes.
    function _clearVerification(Task memory t) private pure {
        t.accepted = false;
        t.verifier = address(0);
        t.verifierLocked = 0;
        t.verdictBlock = 0;
        t.challengeEndBlock = 0;
        t.openEndBlock = 0;
        t.revealEndBlock = 0;
        t.rejectSegment = 0;
        t.disputeFiled = false;
        t.nextChallenge = 0;
        t.rejectReplayHash = bytes32(0);
        t.rejectStartHash = bytes32(0);
        t.rejectEndHash = bytes32(0);
        t.activeDispute = 0;
    }

    /// @dev Back to Committed (the solver's claim, secret, proof and stake stay) for a fresh verification.
    /// @param replacedManifest the manifest of the proof that replaced the committed one (0: the proof stays)
    function _backToCommitted(uint256 id, Task memory t, bytes32 replacedManifest) internal {
        uint40 deadline = _after(t.verificationTimeout);
        t.status = Status.Committed;
        t.commitBlock = uint40(block.number);
        t.deadline = deadline;
        _clearVerification(t);
        delete _challenges[id];
        emit VerificationReopened(id, t.proofRoot, replacedManifest, deadline);
    }

    function _bar(uint256 id, address verifier) internal {
        _barred[id][verifier] = true;
        emit VerifierExcluded(id, verifier);
    }

    // ---------------------------------------------------------------- internals: checks

    /// @dev Merkle proofs that `startHash`/`endHash` are checkpoints `segment`/`segment + 1` of `proofRoot`.
    function _checkSegment(
        uint256 id,
        Task memory t,
        uint32 segment,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) internal pure {
        uint256 count = t.checkpointCount;
        if (uint256(segment) + 1 >= count) revert InvalidSegment(id, segment);
        bytes32 root = t.proofRoot;
        if (!ProofMerkle.verify(root, startHash, segment, count, startProof)) revert InvalidMerkleProof(id, segment);
        if (!ProofMerkle.verify(root, endHash, uint256(segment) + 1, count, endProof)) {
            revert InvalidMerkleProof(id, uint256(segment) + 1);
        }
    }

    /// @dev Stacking: `startCheckpoint` is checkpoint 0 of the proof being committed and the last checkpoint of the
    ///      parent's accepted proof (Merkle proofs against both roots).
    function _checkStart(uint256 id, Task memory t, Task memory parent, Start calldata start) internal pure {
        if (!ProofMerkle.verify(t.proofRoot, start.checkpoint, 0, t.checkpointCount, start.proof)) revert InvalidMerkleProof(id, 0);
        uint256 count = parent.checkpointCount;
        if (!ProofMerkle.verify(parent.proofRoot, start.checkpoint, count - 1, count, start.parentFinalProof)) {
            revert InvalidMerkleProof(t.parentId, count - 1);
        }
    }

    /// @dev Until when a Submitted task may be claimed (and from when it may expire): its deadline; for a task with
    ///      a parent, type(uint64).max while the parent is live, 0 once the parent expired or stopped early, and
    ///      max(deadline, the parent's settlement + claimTimeout) once it settled with its whole range.
    function _claimDeadline(Task memory t, Task memory parent) internal pure returns (uint64) {
        uint64 deadline = t.deadline;
        if (t.parentId == 0) return deadline;
        Status s = parent.status;
        if (s == Status.Expired || (s == Status.Settled && parent.totalSteps != parent.maxSteps)) return 0;
        if (s != Status.Settled) return type(uint64).max;
        uint64 opened = uint64(parent.deadline) + t.claimTimeout;
        return opened > deadline ? opened : deadline;
    }

    function _requireChallengeWindow(uint256 id, Task memory t) internal view {
        if (block.number > t.challengeEndBlock) revert ChallengeWindowClosed(id, t.challengeEndBlock);
    }

    /// @dev The forced-error seed: recorded by `fixSeed`, else blockhash(claimBlock + 1). Past the EVM's 256-block
    ///      window an unrecorded seed is gone for good (`RandomnessExpired`): there is no fallback a solver could
    ///      choose by picking its block, so the claim can only time out (and be slashed).
    function _seed(uint256 id, Task memory t) internal view returns (bytes32 seed) {
        seed = t.seed;
        if (seed != bytes32(0)) return seed;
        seed = _hashOfNextBlock(id, t.claimBlock);
    }

    /// @dev blockhash(anchor + 1): reverts `RandomnessNotReady` until that block exists and `RandomnessExpired` once
    ///      the EVM no longer returns it (256 blocks later).
    function _hashOfNextBlock(uint256 id, uint64 anchor) internal view returns (bytes32 hash) {
        uint256 drawBlock = uint256(anchor) + 1;
        if (block.number <= drawBlock) revert RandomnessNotReady(id, uint64(drawBlock + 1));
        hash = blockhash(drawBlock);
        if (hash == bytes32(0)) revert RandomnessExpired(id, uint64(drawBlock + 256));
    }

    /// @dev What commitProof folds into `secretHash` and a reveal must open (see `Task.secretHash`).
    function _coinCommitment(bytes32 secretHash, bytes32 seed, bytes32 sealedHonest) internal pure returns (bytes32) {
        return keccak256(abi.encode(secretHash, seed, sealedHonest));
    }

    function _isForced(bytes32 secret, bytes32 seed, uint16 forcedErrorBps) internal pure returns (bool) {
        return uint256(keccak256(abi.encode(secret, seed))) % BPS < forcedErrorBps;
    }

    /// @dev The task's rewards: `price * workUnits * totalSteps / maxSteps` (the whole range, maxSteps, before
    ///      the commit fixes totalSteps) and verifierFeeBps of it; 0 while no claim fixed a price.
    function _rewards(Task memory t) internal pure returns (uint256 solverReward, uint256 verifierReward) {
        uint256 maxSteps = t.maxSteps;
        uint256 steps = t.totalSteps;
        if (steps == 0) steps = maxSteps;
        solverReward = uint256(t.price) * t.workUnits * steps / maxSteps;
        verifierReward = solverReward * t.verifierFeeBps / BPS;
    }

    /// @dev `amount` as the uint128 a task packs ether in (reverts `AmountTooLarge` past it).
    function _u128(uint256 amount) internal pure returns (uint128) {
        if (amount > type(uint128).max) revert AmountTooLarge(amount, 128);
        return uint128(amount);
    }

    /// @dev `amount` as the uint96 a task packs a stake in, beside its address (reverts `AmountTooLarge` past it).
    function _u96(uint256 amount) internal pure returns (uint96) {
        if (amount > type(uint96).max) revert AmountTooLarge(amount, 96);
        return uint96(amount);
    }

    // ---------------------------------------------------------------- internals: the task's state

    /// @dev Task `id`'s state from `state`, whose first STATE_WORDS words must be its current state (`StaleTask`);
    ///      a call that changes the task ends with `_save`.
    function _open(uint256 id, bytes32[] calldata state) internal view returns (Task memory) {
        if (state.length < STATE_WORDS || keccak256(abi.encodePacked(state[:STATE_WORDS])) != _taskHashes[id]) {
            // An id no task has stores no hash, and no state hashes to 0: which of the two it is only matters for the
            // error, so the task count is read only here (a cold slot the calls that succeed do not pay for).
            _requireTask(id);
            revert StaleTask(id);
        }
        return _unpack(state[:STATE_WORDS]);
    }

    /// @dev Reverts TaskNotFound unless a task has id `id` (ids run from 1 to taskCount).
    function _requireTask(uint256 id) internal view {
        if (id == 0 || id > taskCount) revert TaskNotFound(id);
    }

    /// @dev The parent of `t` from the words of `state` after the task's own (an empty task when it has none).
    function _openParent(Task memory t, bytes32[] calldata state) internal view returns (Task memory parent) {
        uint256 parentId = t.parentId;
        if (parentId == 0) return parent;
        if (state.length != 2 * STATE_WORDS) revert StaleTask(parentId);
        return _open(parentId, state[STATE_WORDS:]);
    }

    /// @dev Stores the hash of `t` as task `id`'s state and emits the state (TaskState).
    function _save(uint256 id, Task memory t) internal {
        bytes32[STATE_WORDS] memory words = _pack(t);
        _taskHashes[id] = keccak256(abi.encodePacked(words));
        emit TaskState(id, words);
    }

    /// @dev The state's words: each field at its bit offset in its word, in the struct's order (see `Task`).
    function _pack(Task memory t) internal pure returns (bytes32[STATE_WORDS] memory w) {
        w[0] = bytes32(
            uint256(uint160(t.submitter)) | uint256(t.status) << 160 | (t.accepted ? uint256(1) : 0) << 168
                | uint256(t.attempts) << 176 | uint256(t.verifierFeeBps) << 208 | uint256(t.demandWeight) << 224
                | uint256(t.forcedErrorBps) << 240
        );
        w[1] = bytes32(uint256(t.escrow) | uint256(t.maxPrice) << 128);
        w[2] = bytes32(uint256(t.workUnits) | uint256(t.maxSteps) << 64 | uint256(t.parentId) << 128 | uint256(t.submittedAt) << 192);
        w[3] = bytes32(
            uint256(t.claimTimeout) | uint256(t.trainingTimeout) << 32 | uint256(t.verificationTimeout) << 64
                | uint256(t.deadline) << 96 | uint256(t.claimBlock) << 136 | uint256(t.commitBlock) << 176
                | uint256(t.totalSteps) << 216
        );
        w[4] = bytes32(uint256(uint160(t.solver)) | uint256(t.solverLocked) << 160);
        w[5] = bytes32(
            uint256(t.price) | uint256(t.checkpointCount) << 128 | (t.forcedRevealed ? uint256(1) : 0) << 160
                | (t.disputeFiled ? uint256(1) : 0) << 168 | uint256(t.nextChallenge) << 176
                | uint256(t.rejectSegment) << 184 | uint256(t.checkpointInterval) << 216
        );
        w[6] = t.secretHash;
        w[7] = t.proofRoot;
        w[8] = t.seed;
        w[9] = bytes32(uint256(uint160(t.verifier)) | uint256(t.verifierLocked) << 160);
        w[10] = bytes32(
            uint256(t.verdictBlock) | uint256(t.challengeEndBlock) << 64 | uint256(t.openEndBlock) << 128
                | uint256(t.revealEndBlock) << 192
        );
        w[11] = t.rejectReplayHash;
        w[12] = t.rejectStartHash;
        w[13] = t.rejectEndHash;
        w[14] = bytes32(t.activeDispute);
    }

    /// @dev The inverse of `_pack` (a word's bits beyond its fields are ignored: `_open` has checked the hash).
    function _unpack(bytes32[] calldata w) internal pure returns (Task memory t) {
        uint256 x = uint256(w[0]);
        t.submitter = address(uint160(x));
        t.status = Status(uint8(x >> 160));
        t.accepted = uint8(x >> 168) != 0;
        t.attempts = uint32(x >> 176);
        t.verifierFeeBps = uint16(x >> 208);
        t.demandWeight = uint16(x >> 224);
        t.forcedErrorBps = uint16(x >> 240);
        x = uint256(w[1]);
        t.escrow = uint128(x);
        t.maxPrice = uint128(x >> 128);
        x = uint256(w[2]);
        t.workUnits = uint64(x);
        t.maxSteps = uint64(x >> 64);
        t.parentId = uint64(x >> 128);
        t.submittedAt = uint64(x >> 192);
        x = uint256(w[3]);
        t.claimTimeout = uint32(x);
        t.trainingTimeout = uint32(x >> 32);
        t.verificationTimeout = uint32(x >> 64);
        t.deadline = uint40(x >> 96);
        t.claimBlock = uint40(x >> 136);
        t.commitBlock = uint40(x >> 176);
        t.totalSteps = uint40(x >> 216);
        x = uint256(w[4]);
        t.solver = address(uint160(x));
        t.solverLocked = uint96(x >> 160);
        x = uint256(w[5]);
        t.price = uint128(x);
        t.checkpointCount = uint32(x >> 128);
        t.forcedRevealed = uint8(x >> 160) != 0;
        t.disputeFiled = uint8(x >> 168) != 0;
        t.nextChallenge = uint8(x >> 176);
        t.rejectSegment = uint32(x >> 184);
        t.checkpointInterval = uint40(x >> 216);
        t.secretHash = w[6];
        t.proofRoot = w[7];
        t.seed = w[8];
        x = uint256(w[9]);
        t.verifier = address(uint160(x));
        t.verifierLocked = uint96(x >> 160);
        x = uint256(w[10]);
        t.verdictBlock = uint64(x);
        t.challengeEndBlock = uint64(x >> 64);
        t.openEndBlock = uint64(x >> 128);
        t.revealEndBlock = uint64(x >> 192);
        t.rejectReplayHash = w[11];
        t.rejectStartHash = w[12];
        t.rejectEndHash = w[13];
        t.activeDispute = uint256(w[14]);
    }

    function _requireStatus(uint256 id, Task memory t, Status expected) internal pure {
        if (t.status != expected) revert InvalidStatus(id, t.status);
    }

    function _requireRole(uint8 role) internal view {
        if (!registry.hasRoles(msg.sender, role)) revert NotRegistered(msg.sender, role);
    }

    function _requireBeforeDeadline(uint256 id, Task memory t) internal view {
        if (block.timestamp > t.deadline) revert DeadlinePassed(id, t.deadline);
    }

    /// @dev Timeouts are at most ProtocolConfig.MAX_TIMEOUT, so this cannot overflow a task's uint40 deadline for
    ///      the lifetime of any chain.
    function _after(uint64 duration) internal view returns (uint40) {
        return uint40(block.timestamp + duration);
    }

    /// @dev Credits `amount` to `to` for a later `withdraw` (pull payment: a recipient that cannot or will not
    ///      take ether cannot block the settlement that pays it, nor anyone else's); zero amounts are skipped.
    function _credit(address to, uint256 amount) internal {
        if (amount == 0) return;
        uint256 balance = _credits[to] + amount;
        _credits[to] = balance;
        totalCredit += _u128(amount);
        emit Credited(to, amount, balance);
    }

    /// @dev floor(x * y / denominator) with a 512-bit intermediate product (Remco Bloemen's method, as in
    ///      OpenZeppelin's Math.mulDiv, MIT). The caller guarantees the result fits (here it is <= x).
    function _mulDiv(uint256 x, uint256 y, uint256 denominator) internal pure returns (uint256 result) {
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
