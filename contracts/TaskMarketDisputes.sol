// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {WHISTLEBLOWER_ROLE} from "./RoleRegistry.sol";
import {Params} from "./ProtocolConfig.sol";
import {IPinpointGame} from "./IPinpointGame.sol";
import {TaskMarketBase} from "./TaskMarketBase.sol";

/// @title TaskMarketDisputes
/// @notice The actions of TaskMarket off the honest path (docs/disputes.md, lifecycle 6 and 7): whistleblower
///         challenges (commit and open), the solver's dispute of a rejection, the reveal of a forced error, and
///         expiry. Its code runs only on a TaskMarket's storage: the market's functions of the same names DELEGATECALL here.
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

    /// @notice Names the dispute game (its opener must be this market). Owner only, once.
    function setGame(address game_) external onlyDelegated {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (address(game) != address(0)) revert GameAlreadySet();
        if (game_ == address(0)) revert ZeroAddress();
        game = IPinpointGame(game_);
        emit GameSet(game_);
    }

    /// @notice Adds the ether sent to the jackpot (anyone).
    function fundJackpot() external payable onlyDelegated {
        if (msg.value == 0) revert ZeroAmount();
        uint256 total = jackpot + msg.value;
        jackpot = _u128(total);
        emit JackpotFunded(msg.sender, msg.value, total);
    }

    /// @notice Sends the caller's whole credit (fees, refunds, shortfalls credited to it) to `to`. A caller that
    ///         cannot take ether itself names another address.
    function withdraw(address to) external onlyDelegated {
        uint256 amount = _credits[msg.sender];
        if (amount == 0) revert NothingToWithdraw(msg.sender);
        if (to == address(0)) revert ZeroAddress();
        _credits[msg.sender] = 0;
        totalCredit -= uint128(amount);
        emit CreditWithdrawn(msg.sender, to, amount);
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(to, amount);
    }

    /// @notice Anyone re-anchors the verification randomness of a Committed task whose `blockhash(commitBlock + 1)`
    ///         the EVM has forgotten (nobody claimed it within 256 blocks): the anchor becomes this block, so the
    ///         draw is the hash of the next one, unknown to the caller. A re-roll is possible only once per 257
    ///         blocks and only before the verification deadline (then the task expires).
    function renewRandomness(uint256 id, bytes32[] calldata state) external onlyDelegated {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Committed);
        _requireBeforeDeadline(id, t);
        uint256 lastBlock = uint256(t.commitBlock) + 257;
        if (block.number <= lastBlock) revert RandomnessNotExpired(id, uint64(lastBlock));
        t.commitBlock = uint40(block.number);
        _save(id, t);
        emit RandomnessRenewed(id, uint64(block.number));
    }

    /// @notice Anyone records the forced-error seed of a Claimed task, `blockhash(claimBlock + 1)`, while the EVM
    ///         still returns it (from block claimBlock + 2 to claimBlock + 257). A solver whose training outlasts
    ///         that window calls it before; commitProof records it otherwise.
    function fixSeed(uint256 id, bytes32[] calldata state) external onlyDelegated {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Claimed);
        if (t.seed != bytes32(0)) revert SeedAlreadyFixed(id);
        bytes32 seed = _hashOfNextBlock(id, t.claimBlock);
        t.seed = seed;
        _save(id, t);
        emit SeedFixed(id, seed);
    }

    /// @notice A whistleblower (WHISTLEBLOWER role, neither the solver nor the verifier) commits to a challenge of an
    ///         accepted verdict in the challenge window: `commitment = keccak256(abi.encode(id, whistleblower,
    ///         segment, claimedEndHash, salt))`, opened by `openChallenge` in the open window. Locks
    ///         `challengeDeposit`; seats are taken in commit order, up to `maxChallengers`. `sealedClaim` is only
    ///         logged (the whistleblower's own sealed copy of its claim, for a restart). Nobody can copy a claim it
    ///         has not seen, and every claim is hidden until the window closes (docs/security.md, finding 6).
    function commitChallenge(uint256 id, bytes32[] calldata state, bytes32 commitment, bytes calldata sealedClaim)
        external
        onlyDelegated
    {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verified);
        if (!t.accepted) revert WrongVerdict(id, false);
        _requireRole(WHISTLEBLOWER_ROLE);
        if (msg.sender == t.solver || msg.sender == t.verifier) revert PartyCannotChallenge(id, msg.sender);
        _requireChallengeWindow(id, t);
        if (commitment == bytes32(0)) revert ZeroCommitment(id);
        Params memory p = config.params();
        Challenge[] storage queue = _challenges[id];
        uint256 count = queue.length;
        if (_seatOf(queue, msg.sender) < count) revert AlreadyChallenged(id, msg.sender);
        if (count >= p.maxChallengers) revert ChallengeQueueFull(id, p.maxChallengers);

        Challenge storage c = queue.push();
        c.whistleblower = msg.sender;
        c.commitment = commitment;
        c.deposit = p.challengeDeposit;
        emit ChallengeCommitted(id, msg.sender, count, commitment, sealedClaim);

        registry.lock(msg.sender, p.challengeDeposit);
    }

    /// @notice The whistleblower opens its commitment in the open window (`challengeEndBlock < block.number <=
    ///         openEndBlock`): checkpoints `segment`/`segment + 1` of the committed proof are `startHash`/`endHash`
    ///         (Merkle proofs against `proofRoot`), and its own replay of the segment ends in `claimedEndHash`
    ///         (non-zero, != endHash). The challenge is then queued, played at settle in commit order; one never
    ///         opened forfeits its deposit.
    function openChallenge(
        uint256 id,
        bytes32[] calldata state,
        uint32 segment,
        bytes32 claimedEndHash,
        bytes32 salt,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) external onlyDelegated {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verified);
        if (block.number <= t.challengeEndBlock || block.number > t.openEndBlock) {
            revert OutsideOpenWindow(id, t.challengeEndBlock + 1, t.openEndBlock);
        }
        (Challenge storage c, uint256 index) = _committedSeat(id, msg.sender);
        if (c.state != ChallengeState.Committed) revert AlreadyOpened(id, msg.sender);
        if (keccak256(abi.encode(id, msg.sender, segment, claimedEndHash, salt)) != c.commitment) {
            revert CommitmentMismatch(id, msg.sender);
        }
        if (claimedEndHash == bytes32(0) || claimedEndHash == endHash) revert InvalidChallengeClaim(id);
        _checkSegment(id, t, segment, startHash, startProof, endHash, endProof);

        c.segment = segment;
        c.state = ChallengeState.Queued;
        c.claimedEndHash = claimedEndHash;
        c.startHash = startHash;
        c.endHash = endHash;
        emit ChallengeQueued(id, msg.sender, index, segment, claimedEndHash);
    }

    /// @notice The solver disputes a rejection, once: checkpoints `rejectSegment`/`rejectSegment + 1` of its
    ///         proof are `startHash`/`endHash`; the verifier's claim is the verdict's replay hash. Played at
    ///         settle.
    function disputeRejection(
        uint256 id,
        bytes32[] calldata state,
        bytes32 startHash,
        bytes32[] calldata startProof,
        bytes32 endHash,
        bytes32[] calldata endProof
    ) external onlyDelegated {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verified);
        if (t.accepted) revert WrongVerdict(id, true);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        _requireChallengeWindow(id, t);
        if (t.disputeFiled) revert DisputeAlreadyFiled(id);
        _checkSegment(id, t, t.rejectSegment, startHash, startProof, endHash, endProof);

        t.disputeFiled = true;
        t.rejectStartHash = startHash;
        t.rejectEndHash = endHash;
        _save(id, t);
        emit RejectionDisputed(id, msg.sender);
    }

    /// @notice The solver reveals that its published proof was a forced error (docs/disputes.md, lifecycle 7):
    ///         the secret, the seed (ProofCommitted's) and the honest proof open the commitment (`secretHash`, with
    ///         `sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash, secret))`; `InvalidSecret`
    ///         otherwise), the coin `keccak256(abi.encode(secret, seed)) % 10000 < forcedErrorBps` came up and the
    ///         honest root differs from the published one. In the reveal window, after the open window: catchers (the
    ///         verifier if it rejected, else the whistleblowers that opened their challenges, in commit order; one
    ///         never opened forfeits its deposit) share `min(jackpotCap, jackpot)` by weights 2^(n-1-i); a verifier that accepted is
    ///         slashed (winner: the first catcher), one that rejected is unlocked; deposits are unlocked; the
    ///         honest proof replaces the published one and the task is Committed again for a fresh verification,
    ///         the old verifier barred. The solver keeps its stake locked and is not penalised.
    function revealForcedError(
        uint256 id,
        bytes32[] calldata state,
        bytes32 secret,
        bytes32 seed,
        bytes32 honestRoot,
        bytes32 honestManifestHash
    ) external onlyDelegated {
        Task memory t = _open(id, state);
        _requireStatus(id, t, Status.Verified);
        if (msg.sender != t.solver) revert NotSolver(id, msg.sender);
        if (t.forcedRevealed) revert AlreadyRevealed(id);
        if (block.number <= t.openEndBlock || block.number > t.revealEndBlock) {
            revert OutsideRevealWindow(id, t.openEndBlock + 1, t.revealEndBlock);
        }
        bytes32 sealedHonest = keccak256(abi.encode(honestRoot, honestManifestHash, secret));
        if (_coinCommitment(keccak256(abi.encode(secret)), seed, sealedHonest) != t.secretHash) revert InvalidSecret(id);
        if (!_isForced(secret, seed, t.forcedErrorBps)) revert NotForcedError(id);
        if (honestRoot == t.proofRoot || honestRoot == bytes32(0) || honestManifestHash == bytes32(0)) {
            revert HonestRootUnchanged(id);
        }

        address verifier = t.verifier;
        uint256 verifierLocked = t.verifierLocked;
        bool accepted = t.accepted;
        _forfeitUnopened(id, 0);
        (address[] memory catchers, uint256[] memory deposits) = _catchers(id, t);
        uint256[] memory paid = _payJackpot(catchers.length);

        t.forcedRevealed = true;
        t.proofRoot = honestRoot;
        // Only a verifier that accepted the wrong proof is barred: one that rejected it gave the right answer and
        // may verify the honest proof (with a single verifier the task would otherwise wait out its deadline).
        if (accepted) _bar(id, verifier);
        _backToCommitted(id, t, honestManifestHash);
        _save(id, t);
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

    /// @notice Anyone moves on a task whose stage deadline (seconds) has passed.
    ///         Claimed (no proof in time): a training timeout. `timeoutSlashBps` of the solver's locked stake is
    ///         slashed (no winner), the rest unlocked, and the task reopens for another solver (ClaimTimedOut,
    ///         TaskReopened); the escrow stays.
    ///         Otherwise the task expires and the escrow (what is left of it) goes back to the submitter.
    ///         Submitted (nobody claimed it; a task with a parent: see the contract's notes on deadlines).
    ///         Committed (no verifier): the solver's stake is unlocked. Verifying (no verdict): the solver's stake
    ///         is unlocked and the verifier's slashed (no winner).
    function expire(uint256 id, bytes32[] calldata state) external onlyDelegated {
        Task memory t = _open(id, state);
        Status from = t.status;
        if (from != Status.Submitted && from != Status.Claimed && from != Status.Committed && from != Status.Verifying) {
            revert NotExpirable(id, from);
        }
        uint64 deadline = from == Status.Submitted ? _claimDeadline(t, _openParent(t, state)) : t.deadline;
        if (block.timestamp <= deadline) revert DeadlineNotReached(id, deadline);
        address solver = t.solver;
        uint256 solverLocked = t.solverLocked;

        if (from == Status.Claimed) {
            uint256 slashed = solverLocked * config.marketParams().timeoutSlashBps / BPS;
            emit ClaimTimedOut(id, solver, slashed);
            _reopen(id, t);
            _save(id, t);
            _slash(id, solver, slashed, address(0));
            if (solverLocked != slashed) registry.unlock(solver, solverLocked - slashed);
            return;
        }

        uint256 refunded = t.escrow;
        t.status = Status.Expired;
        _save(id, t);
        totalEscrow -= uint128(refunded);
        emit TaskExpired(id, from, refunded);

        if (from == Status.Submitted) {
            book.onCancel(t.demandWeight);
        } else {
            book.onRelease(solver, true, t.demandWeight);
            registry.unlock(solver, solverLocked);
            if (from == Status.Verifying) _slash(id, t.verifier, t.verifierLocked, address(0));
        }

        _credit(t.submitter, refunded);
    }

    /// @notice Jackpot shares of `payout` among `n` catchers: catcher i gets `payout * 2^(n-1-i) / (2^n - 1)`
    ///         (rounded down; the remainder stays in the jackpot). `n` <= 255. Pure: call it on this contract
    ///         (the market's `disputes()`), not through the market.
    function jackpotShares(uint256 payout, uint256 n) external pure returns (uint256[] memory) {
        return _jackpotShares(payout, n);
    }

    /// @dev The challenge `whistleblower` committed to on task `id`, and its seat; reverts `NotCommitted` without one.
    function _committedSeat(uint256 id, address whistleblower) private view returns (Challenge storage c, uint256 index) {
        Challenge[] storage queue = _challenges[id];
        index = _seatOf(queue, whistleblower);
        if (index == queue.length) revert NotCommitted(id, whistleblower);
        c = queue[index];
    }

    /// @dev The seat `whistleblower` holds in `queue`, or `queue.length` when it holds none.
    function _seatOf(Challenge[] storage queue, address whistleblower) private view returns (uint256 index) {
        uint256 count = queue.length;
        for (index = 0; index < count; index++) {
            if (queue[index].whistleblower == whistleblower) return index;
        }
    }
}
