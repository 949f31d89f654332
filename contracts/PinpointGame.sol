// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPinpointGame} from "./IPinpointGame.sol";
import {Params, ProtocolConfig} from "./ProtocolConfig.sol";
import {RoleRegistry, VERIFIER_ROLE} from "./RoleRegistry.sol";
import {ElementwiseReferee} from "./ElementwiseReferee.sol";

/// @title PinpointGame
/// @notice The graph-based pinpoint dispute (docs/disputes.md, "PinpointGame"): two parties bisect a segment of
///         a training proof down to one step, then the operator trace of that step down to one operator, which
///         the contract re-executes itself (`ElementwiseReferee`) or, when it cannot, a committee of staked
///         verifiers decides. Every round has a deadline in blocks; a party that lets it pass loses.
/// @dev Only the opener (the TaskMarket) opens disputes; the market pulls the result through `outcomeOf`, so the
///      game never calls out except to read the registry and the config. Round timeouts are read from the
///      config when the dispute opens and kept for its whole life (a config change never shortens a running
///      round); committee size, verifier stake and the on-chain element limit are read when they are used.
///
///      Commitments (docs/disputes.md, "The operator trace of one step"):
///        d_j = keccak256(abi.encode(kernel, inputs, inputShapes, outputShape, outputDtype, attrs))
///        g_0 = 0, g_j = keccak256(abi.encode(g_{j-1}, d_j)), graphHash = g_m
///        c_0 = keccak256(abi.encode(S_i, uint256(i))), c_j = keccak256(abi.encode(c_{j-1}, o_j)),
///        finalCommitment = c_m, c_{m+1} = keccak256(abi.encode(finalCommitment, S_{i+1}))
contract PinpointGame is IPinpointGame {
    // ---------------------------------------------------------------- types
    enum Phase {
        None,
        Steps,
        TraceHeader,
        Operators,
        Arbitration,
        Committee,
        Resolved
    }

    /// @notice What a committee is asked. Graph: the parties' operator graphs (or counts) of step i differ.
    ///         StateAssembly: every operator output agreed, the state S_{i+1} they assemble into did not.
    ///         Operator: the output of element `element` from agreed inputs (not decidable on chain, or escalated).
    enum Question {
        None,
        Graph,
        StateAssembly,
        Operator
    }

    /// @notice How a dispute ended. Timeout: a party (or both) let a round's deadline pass. Arbitration: the
    ///         contract re-executed the operator. Committee: the committee's votes were tallied (a tie or no
    ///         vote gives Void). Void: no eligible committee member could be drawn.
    enum Resolution {
        Timeout,
        Arbitration,
        Committee,
        Void
    }

    /// @notice One operator of the trace, exactly the fields of its descriptor D_j.
    struct Operation {
        string kernel;
        uint32[] inputs;
        uint32[][] inputShapes;
        uint32[] outputShape;
        string outputDtype;
        bytes attrs;
    }

    struct TraceHeader {
        uint32 opCount;
        bytes32 graphHash;
        bytes32 finalCommitment;
    }

    /// @notice Everything about one dispute. `lo`/`hi`/`loHash`/`proverHi`/`challengerHi` are the bisection
    ///         bounds of the current phase: steps in Steps, element numbers (0 .. opCount + 1) in Operators.
    ///         `proverPost`/`challengerPost` are this round's posts and mean something only while the matching
    ///         `*Posted` flag is set (in TraceHeader the posts are the headers). `step` is the disputed step i,
    ///         `stateHash` the agreed S_i, `proverNext`/`challengerNext` each party's S_{i+1} (set once the
    ///         steps are narrowed to one). `element` is the disputed element j (Arbitration, Committee
    ///         question Operator; opCount + 1 for StateAssembly). `deadline` is the last block a move of the
    ///         current round (or a vote) is accepted. `rounds` counts the rounds completed: every pair of
    ///         posts, an arbitration and a committee decision. `previousOfTask` is the dispute opened before
    ///         this one over the same task (0: none), the link `disputesOfTask` walks.
    /// @dev Field order packs the storage: open writes eight slots (nine for a task's second dispute).
    struct Dispute {
        uint256 taskId;
        address prover;
        bool openerIsProver;
        Phase phase;
        Outcome outcome;
        Question question;
        bool proverPosted;
        bool challengerPosted;
        uint32 rounds;
        address challenger;
        uint64 deadline;
        uint32 element;
        address excluded;
        uint32 roundTimeoutBlocks;
        uint32 committeeTimeoutBlocks;
        uint64 startStep;
        uint64 endStep;
        uint64 lo;
        uint64 hi;
        uint64 step;
        uint64 previousOfTask;
        /// a committee opened in this block is drawn from the hash of the next one (0: none pending)
        uint64 drawAnchor;
        bytes32 loHash;
        bytes32 proverHi;
        bytes32 challengerHi;
        bytes32 stateHash;
        bytes32 proverNext;
        bytes32 challengerNext;
        bytes32 proverPost;
        bytes32 challengerPost;
        TraceHeader proverHeader;
        TraceHeader challengerHeader;
    }

    /// @dev One committee seat: the member and its vote (0 until it votes; 1 prover, 2 challenger, 3 neither).
    struct Seat {
        address member;
        uint8 vote;
    }

    /// @notice Most registry entries one committee draw looks at (bounds its gas).
    uint256 public constant MAX_DRAW_WALK = 64;
    uint8 public constant VOTE_PROVER = 1;
    uint8 public constant VOTE_CHALLENGER = 2;
    uint8 public constant VOTE_NEITHER = 3;
    /// @notice The only output dtype the referee re-executes.
    bytes32 private constant FLOAT32 = keccak256("float32");

    // ---------------------------------------------------------------- errors
    error ZeroAddress();
    error NotOpener(address caller);
    error InvalidParties(address prover, address challenger);
    error InvalidStepRange(uint64 startStep, uint64 endStep);
    error ZeroHash();
    error NoDisagreement(bytes32 endHash);
    error DisputeNotFound(uint256 id);
    error WrongPhase(uint256 id, Phase current);
    error NotParty(uint256 id, address caller);
    error AlreadyPosted(uint256 id, address party);
    error DeadlinePassed(uint256 id, uint64 deadline);
    error DeadlineNotReached(uint256 id, uint64 deadline);
    /// @notice A trace header whose graph hash is zero must have no operators and vice versa (g_0 = 0).
    error InvalidTraceHeader(uint32 opCount, bytes32 graphHash);
    /// @param field "descriptorHashes" (must hold opCount hashes), "outputHashes" (j - 1 hashes: o_1 .. o_{j-1})
    ///        or "inputs" (one byte string per input of the operation)
    error WrongLength(string field, uint256 expected, uint256 actual);
    error GraphMismatch(bytes32 expected, bytes32 computed);
    error DescriptorMismatch(uint32 element, bytes32 expected, bytes32 computed);
    /// @notice o_1 .. o_{j-1} do not chain from c_0 to the agreed c_{j-1}.
    error OutputsMismatch(bytes32 expected, bytes32 computed);
    /// @notice Input `index` of the operation names element `element`, which is not an earlier element.
    error InputOutOfRange(uint256 index, uint32 element);
    /// @notice The bytes given for input `index` do not hash to the agreed output of its element.
    error InputMismatch(uint256 index, bytes32 expected, bytes32 computed);
    /// @notice The contract cannot re-execute this operator (unsupported kernel or dtype, a tensor over
    ///         maxOnchainElements, or shapes that do not fit the data): escalate to the committee.
    error NotDecidableOnchain(string kernel);
    error NotCommitteeMember(uint256 id, address caller);
    error CommitteeNotDrawn(uint256 id, uint64 drawableFromBlock);
    error CommitteeAlreadyDrawn(uint256 id);
    error AlreadyVoted(uint256 id, address member);
    error InvalidChoice(uint8 choice);

    // ---------------------------------------------------------------- events
    event DisputeOpened(
        uint256 indexed id,
        uint256 indexed taskId,
        address indexed prover,
        address challenger,
        bool openerIsProver,
        address excluded,
        uint64 startStep,
        uint64 endStep,
        bytes32 startHash,
        bytes32 proverEndHash,
        bytes32 challengerEndHash
    );
    /// @notice A round opened in which both parties must post for `index` (Steps: the step mid; TraceHeader:
    ///         the disputed step; Operators: the element mid) by block `deadline`.
    event RoundOpened(uint256 indexed id, Phase phase, uint64 index, uint64 deadline);
    event StatePosted(uint256 indexed id, address indexed party, uint32 round, uint64 mid, bytes32 stateHash);
    /// @param agreed both posted the same hash for `mid` (lo moved up to it), else hi moved down to it
    event StepsNarrowed(uint256 indexed id, uint32 round, uint64 mid, bool agreed, uint64 lo, uint64 hi);
    /// @notice The dispute is down to one step: `step` from agreed `stateHash`, to the parties' S_{i+1}.
    event StepIsolated(uint256 indexed id, uint64 step, bytes32 stateHash, bytes32 proverNext, bytes32 challengerNext);
    event TraceHeaderPosted(
        uint256 indexed id, address indexed party, uint32 opCount, bytes32 graphHash, bytes32 finalCommitment
    );
    event CommitmentPosted(uint256 indexed id, address indexed party, uint32 round, uint64 mid, bytes32 commitment);
    event OperatorsNarrowed(uint256 indexed id, uint32 round, uint64 mid, bool agreed, uint64 lo, uint64 hi);
    /// @notice Element `element` is disputed from agreed inputs: `arbitrate` (or `escalate`) by the deadline.
    event ArbitrationReady(uint256 indexed id, uint32 element, uint64 deadline);
    /// @param commitment keccak256(abi.encode(c_{j-1}, o_j)) of the contract's own re-execution
    event Arbitrated(uint256 indexed id, string kernel, Outcome outcome, bytes32 commitment);
    event Escalated(uint256 indexed id, address indexed party);
    /// @notice A round's deadline passed (`timeout`), in `phase`.
    event TimedOut(uint256 indexed id, Phase phase);
    /// @notice A committee is due: `drawCommittee` (anyone) draws it from blockhash(`anchor` + 1), a block nobody
    ///         knew when it was opened. A draw left past the EVM's 256-block window re-anchors to its own block.
    event CommitteeOpened(uint256 indexed id, Question question, uint32 element, uint64 anchor);
    event CommitteeDrawn(uint256 indexed id, address[] members, Question question, uint32 element, uint64 deadline);
    event Voted(uint256 indexed id, address indexed member, uint8 choice);
    event DisputeResolved(uint256 indexed id, Outcome outcome, uint32 rounds, Resolution reason);

    // ---------------------------------------------------------------- state
    address public immutable opener;
    RoleRegistry public immutable registry;
    ProtocolConfig public immutable config;

    uint256 public disputeCount;
    mapping(uint256 => Dispute) private _disputes;
    mapping(uint256 => Seat[]) private _committees;
    /// @dev The latest dispute of each task; older ones are linked through `Dispute.previousOfTask` (it shares a
    ///      slot with `step`, so the list costs one storage slot per task, not two per dispute).
    mapping(uint256 => uint256) private _lastOfTask;

    constructor(address opener_, address registry_, address config_) {
        if (opener_ == address(0) || registry_ == address(0) || config_ == address(0)) revert ZeroAddress();
        opener = opener_;
        registry = RoleRegistry(registry_);
        config = ProtocolConfig(config_);
    }

    // ---------------------------------------------------------------- opening

    /// @inheritdoc IPinpointGame
    function open(
        uint256 taskId,
        address prover,
        address challenger,
        bool openerIsProver,
        address excluded,
        uint64 startStep,
        uint64 endStep,
        bytes32 startHash,
        bytes32 proverEndHash,
        bytes32 challengerEndHash
    ) external returns (uint256 id) {
        if (msg.sender != opener) revert NotOpener(msg.sender);
        if (prover == address(0) || challenger == address(0)) revert ZeroAddress();
        if (prover == challenger) revert InvalidParties(prover, challenger);
        if (endStep <= startStep) revert InvalidStepRange(startStep, endStep);
        if (startHash == 0 || proverEndHash == 0 || challengerEndHash == 0) revert ZeroHash();
        if (proverEndHash == challengerEndHash) revert NoDisagreement(proverEndHash);

        Params memory p = config.params();
        id = ++disputeCount;
        Dispute storage d = _disputes[id];
        d.taskId = taskId;
        d.prover = prover;
        d.challenger = challenger;
        d.excluded = excluded;
        d.openerIsProver = openerIsProver;
        // ProtocolConfig caps every timeout at MAX_BLOCKS (100000), so they fit 32 bits.
        d.roundTimeoutBlocks = uint32(p.roundTimeoutBlocks);
        d.committeeTimeoutBlocks = uint32(p.committeeTimeoutBlocks);
        d.startStep = startStep;
        d.endStep = endStep;
        d.lo = startStep;
        d.hi = endStep;
        d.loHash = startHash;
        d.proverHi = proverEndHash;
        d.challengerHi = challengerEndHash;
        _linkToTask(id, d);
        _emitOpened(id, d);
        if (endStep - startStep == 1) {
            _isolateStep(id, d);
        } else {
            d.phase = Phase.Steps;
            _openRound(id, d, (startStep + endStep) / 2);
        }
    }

    /// @dev Appends the dispute to its task's list (a private function: `open` has no stack slot left).
    function _linkToTask(uint256 id, Dispute storage d) private {
        uint256 previous = _lastOfTask[d.taskId];
        // Ids count up by one per dispute: they never reach 2^64.
        if (previous != 0) d.previousOfTask = uint64(previous);
        _lastOfTask[d.taskId] = id;
    }

    /// @dev Reads the event's fields back from storage: `open` has too many locals to encode it itself.
    function _emitOpened(uint256 id, Dispute storage d) private {
        emit DisputeOpened(
            id,
            d.taskId,
            d.prover,
            d.challenger,
            d.openerIsProver,
            d.excluded,
            d.startStep,
            d.endStep,
            d.loHash,
            d.proverHi,
            d.challengerHi
        );
    }

    // ---------------------------------------------------------------- moves

    /// @notice Posts the caller's state hash (S_mid) for this round's `mid = (lo + hi) / 2` of the step bisection.
    function postState(uint256 id, bytes32 stateHash) external {
        Dispute storage d = _disputes[id];
        bool isProver = _checkPost(id, d, Phase.Steps);
        if (stateHash == 0) revert ZeroHash();
        uint64 mid = (d.lo + d.hi) / 2;
        emit StatePosted(id, msg.sender, d.rounds + 1, mid, stateHash);
        if (!_record(d, isProver, stateHash)) return;
        bool agreed = _narrow(d, mid, isProver, stateHash);
        emit StepsNarrowed(id, d.rounds, mid, agreed, d.lo, d.hi);
        if (d.hi - d.lo == 1) _isolateStep(id, d);
        else _openRound(id, d, (d.lo + d.hi) / 2);
    }

    /// @notice Posts the caller's header of the operator trace of the disputed step: its element count, its
    ///         graph hash g_m (0 when there are no elements) and its final commitment c_m.
    function postTraceHeader(uint256 id, uint32 opCount, bytes32 graphHash, bytes32 finalCommitment) external {
        Dispute storage d = _disputes[id];
        bool isProver = _checkPost(id, d, Phase.TraceHeader);
        if (finalCommitment == 0) revert ZeroHash();
        if ((opCount == 0) != (graphHash == 0)) revert InvalidTraceHeader(opCount, graphHash);
        TraceHeader memory header = TraceHeader(opCount, graphHash, finalCommitment);
        if (isProver) {
            d.proverHeader = header;
            d.proverPosted = true;
        } else {
            d.challengerHeader = header;
            d.challengerPosted = true;
        }
        emit TraceHeaderPosted(id, msg.sender, opCount, graphHash, finalCommitment);
        if (!(d.proverPosted && d.challengerPosted)) return;
        d.proverPosted = false;
        d.challengerPosted = false;
        d.rounds += 1;
        TraceHeader memory other = isProver ? d.challengerHeader : d.proverHeader;
        if (other.opCount != opCount || other.graphHash != graphHash) {
            _openCommittee(id, d, Question.Graph, 0);
            return;
        }
        d.phase = Phase.Operators;
        d.lo = 0;
        d.hi = uint64(opCount) + 1;
        d.loHash = keccak256(abi.encode(d.stateHash, uint256(d.step)));
        d.proverHi = keccak256(abi.encode(d.proverHeader.finalCommitment, d.proverNext));
        d.challengerHi = keccak256(abi.encode(d.challengerHeader.finalCommitment, d.challengerNext));
        if (opCount == 0) _isolateElement(id, d);
        else _openRound(id, d, (d.lo + d.hi) / 2);
    }

    /// @notice Posts the caller's output commitment c_mid for this round's `mid = (lo + hi) / 2` of the
    ///         operator bisection.
    function postCommitment(uint256 id, bytes32 commitment) external {
        Dispute storage d = _disputes[id];
        bool isProver = _checkPost(id, d, Phase.Operators);
        if (commitment == 0) revert ZeroHash();
        uint64 mid = (d.lo + d.hi) / 2;
        emit CommitmentPosted(id, msg.sender, d.rounds + 1, mid, commitment);
        if (!_record(d, isProver, commitment)) return;
        bool agreed = _narrow(d, mid, isProver, commitment);
        emit OperatorsNarrowed(id, d.rounds, mid, agreed, d.lo, d.hi);
        if (d.hi - d.lo == 1) _isolateElement(id, d);
        else _openRound(id, d, (d.lo + d.hi) / 2);
    }

    /// @notice Re-executes the disputed element j (anyone may call, by the deadline). `descriptorHashes` are
    ///         d_1 .. d_m of the agreed graph, `outputHashes` the agreed o_1 .. o_{j-1}, `inputs` the bytes of
    ///         each input of `op` (in its order). Decides ProverWon, ChallengerWon or BothWrong by which party's
    ///         c_j equals keccak256(abi.encode(c_{j-1}, o_j)) of the re-executed output.
    function arbitrate(
        uint256 id,
        Operation calldata op,
        bytes32[] calldata descriptorHashes,
        bytes32[] calldata outputHashes,
        bytes[] calldata inputs
    ) external {
        Dispute storage d = _disputes[id];
        _checkArbitration(id, d);
        uint32 j = d.element;
        _checkGraph(d, op, descriptorHashes, j);
        uint32 maxElements = config.params().maxOnchainElements;
        _checkExecutable(op, maxElements);
        _checkInputs(d, op, outputHashes, inputs, j);

        bytes memory output = ElementwiseReferee.execute(op.kernel, inputs, op.inputShapes, op.outputShape, op.attrs);
        bytes32 commitment = keccak256(abi.encode(d.loHash, keccak256(output)));
        Outcome outcome = commitment == d.proverHi
            ? Outcome.ProverWon
            : commitment == d.challengerHi ? Outcome.ChallengerWon : Outcome.BothWrong;
        d.rounds += 1;
        emit Arbitrated(id, op.kernel, outcome, commitment);
        _resolve(id, d, outcome, Resolution.Arbitration);
    }

    /// @notice A party sends the disputed element to the committee (for an operator the contract cannot
    ///         re-execute: `arbitrate` reverts NotDecidableOnchain).
    function escalate(uint256 id) external {
        Dispute storage d = _disputes[id];
        _checkArbitration(id, d);
        if (msg.sender != d.prover && msg.sender != d.challenger) revert NotParty(id, msg.sender);
        emit Escalated(id, msg.sender);
        _openCommittee(id, d, Question.Operator, d.element);
    }

    /// @notice A committee member's vote: 1 the prover is right, 2 the challenger is, 3 neither. The dispute
    ///         resolves as soon as every member has voted.
    function vote(uint256 id, uint8 choice) external {
        Dispute storage d = _disputes[id];
        _requirePhase(id, d, Phase.Committee);
        if (d.drawAnchor != 0) revert CommitteeNotDrawn(id, d.drawAnchor + 2);
        if (block.number > d.deadline) revert DeadlinePassed(id, d.deadline);
        if (choice < VOTE_PROVER || choice > VOTE_NEITHER) revert InvalidChoice(choice);
        Seat[] storage seats = _committees[id];
        uint256 n = seats.length;
        uint256 seat = n;
        bool allVoted = true;
        for (uint256 k = 0; k < n; k++) {
            Seat storage s = seats[k];
            if (s.member == msg.sender) seat = k;
            else if (s.vote == 0) allVoted = false;
        }
        if (seat == n) revert NotCommitteeMember(id, msg.sender);
        if (seats[seat].vote != 0) revert AlreadyVoted(id, msg.sender);
        seats[seat].vote = choice;
        emit Voted(id, msg.sender, choice);
        if (allVoted) {
            d.rounds += 1;
            _resolve(id, d, _tally(seats), Resolution.Committee);
        }
    }

    /// @notice Anyone, once the current round's deadline has passed. Steps / TraceHeader / Operators: the party
    ///         that posted this round wins; if neither did, the party that opened the dispute loses.
    ///         Arbitration: the committee decides. Committee: the votes cast are tallied.
    function timeout(uint256 id) external {
        Dispute storage d = _disputes[id];
        if (d.phase == Phase.None) revert DisputeNotFound(id);
        Phase phase = d.phase;
        if (phase == Phase.Resolved) revert WrongPhase(id, phase);
        if (block.number <= d.deadline) revert DeadlineNotReached(id, d.deadline);
        emit TimedOut(id, phase);
        if (phase == Phase.Arbitration) {
            _openCommittee(id, d, Question.Operator, d.element);
        } else if (phase == Phase.Committee) {
            d.rounds += 1;
            _resolve(id, d, _tally(_committees[id]), Resolution.Committee);
        } else {
            Outcome outcome;
            if (d.proverPosted) outcome = Outcome.ProverWon;
            else if (d.challengerPosted) outcome = Outcome.ChallengerWon;
            else outcome = d.openerIsProver ? Outcome.ChallengerWon : Outcome.ProverWon;
            _resolve(id, d, outcome, Resolution.Timeout);
        }
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IPinpointGame
    function outcomeOf(uint256 id) external view returns (Outcome) {
        return _disputes[id].outcome;
    }

    /// @notice The whole dispute; posts of the current round read zero until posted (and again once the round
    ///         completes: the narrowed bounds then hold them).
    function getDispute(uint256 id) external view returns (Dispute memory d) {
        d = _disputes[id];
        if (d.phase == Phase.None) revert DisputeNotFound(id);
        if (!d.proverPosted) d.proverPost = 0;
        if (!d.challengerPosted) d.challengerPost = 0;
        if (d.phase == Phase.TraceHeader) {
            if (!d.proverPosted) d.proverHeader = TraceHeader(0, 0, 0);
            if (!d.challengerPosted) d.challengerHeader = TraceHeader(0, 0, 0);
        }
    }

    /// @notice What the current round is about: the step mid (Steps), the disputed step (TraceHeader), the
    ///         element mid (Operators), the disputed element (Arbitration, Committee); 0 once Resolved or for a
    ///         committee on the graph.
    function currentIndex(uint256 id) external view returns (uint64) {
        Dispute storage d = _disputes[id];
        Phase phase = d.phase;
        if (phase == Phase.None) revert DisputeNotFound(id);
        if (phase == Phase.Steps || phase == Phase.Operators) return (d.lo + d.hi) / 2;
        if (phase == Phase.TraceHeader) return d.step;
        if (phase == Phase.Arbitration || phase == Phase.Committee) return d.element;
        return 0;
    }

    /// @notice The drawn committee (empty before a draw) and each member's vote (0 not yet, 1 prover, 2
    ///         challenger, 3 neither).
    function committeeOf(uint256 id) external view returns (address[] memory members, uint8[] memory votes) {
        Seat[] storage seats = _committees[id];
        members = new address[](seats.length);
        votes = new uint8[](seats.length);
        for (uint256 k = 0; k < seats.length; k++) {
            members[k] = seats[k].member;
            votes[k] = seats[k].vote;
        }
    }

    /// @notice The ids of every dispute opened over `taskId`, oldest first.
    function disputesOfTask(uint256 taskId) external view returns (uint256[] memory ids) {
        uint256 n = 0;
        for (uint256 id = _lastOfTask[taskId]; id != 0; id = _disputes[id].previousOfTask) n++;
        ids = new uint256[](n);
        for (uint256 id = _lastOfTask[taskId]; id != 0; id = _disputes[id].previousOfTask) ids[--n] = id;
    }

    /// @notice d_j of an operation (the same encoding the off-chain trace uses).
    /// @dev Takes a memory copy: six calldata slices (offset and length each) are too many for the stack.
    function descriptorHash(Operation memory op) public pure returns (bytes32) {
        return keccak256(abi.encode(op.kernel, op.inputs, op.inputShapes, op.outputShape, op.outputDtype, op.attrs));
    }

    // ---------------------------------------------------------------- internals: rounds

    /// @dev Common checks of a party's post; returns whether the caller is the prover.
    function _checkPost(uint256 id, Dispute storage d, Phase phase) private view returns (bool isProver) {
        _requirePhase(id, d, phase);
        isProver = msg.sender == d.prover;
        if (!isProver && msg.sender != d.challenger) revert NotParty(id, msg.sender);
        if (block.number > d.deadline) revert DeadlinePassed(id, d.deadline);
        if (isProver ? d.proverPosted : d.challengerPosted) revert AlreadyPosted(id, msg.sender);
    }

    /// @dev Stores the first post of a round and returns false; the second completes the round (true): it is not
    ///      stored (the caller narrows with it), the flags are cleared and the round counted.
    function _record(Dispute storage d, bool isProver, bytes32 value) private returns (bool complete) {
        if (isProver ? !d.challengerPosted : !d.proverPosted) {
            if (isProver) {
                d.proverPost = value;
                d.proverPosted = true;
            } else {
                d.challengerPost = value;
                d.challengerPosted = true;
            }
            return false;
        }
        d.proverPosted = false;
        d.challengerPosted = false;
        d.rounds += 1;
        return true;
    }

    /// @dev Equal posts for `mid` move lo up (agreed), different ones move hi down. `value` is the completing
    ///      post (by the prover when `isProver`); the other one is stored.
    function _narrow(Dispute storage d, uint64 mid, bool isProver, bytes32 value) private returns (bool agreed) {
        bytes32 p = isProver ? value : d.proverPost;
        bytes32 c = isProver ? d.challengerPost : value;
        agreed = p == c;
        if (agreed) {
            d.lo = mid;
            d.loHash = p;
        } else {
            d.hi = mid;
            d.proverHi = p;
            d.challengerHi = c;
        }
    }

    function _openRound(uint256 id, Dispute storage d, uint64 index) private {
        uint64 deadline = uint64(block.number) + d.roundTimeoutBlocks;
        d.deadline = deadline;
        emit RoundOpened(id, d.phase, index, deadline);
    }

    function _isolateStep(uint256 id, Dispute storage d) private {
        d.phase = Phase.TraceHeader;
        d.step = d.lo;
        d.stateHash = d.loHash;
        d.proverNext = d.proverHi;
        d.challengerNext = d.challengerHi;
        emit StepIsolated(id, d.lo, d.loHash, d.proverHi, d.challengerHi);
        _openRound(id, d, d.lo);
    }

    /// @dev The operator bisection is down to one element j = hi: the assembly of S_{i+1} (j = opCount + 1)
    ///      goes to the committee, any other element to arbitration.
    function _isolateElement(uint256 id, Dispute storage d) private {
        uint32 j = uint32(d.hi);
        if (j == uint64(d.proverHeader.opCount) + 1) {
            _openCommittee(id, d, Question.StateAssembly, j);
            return;
        }
        d.phase = Phase.Arbitration;
        d.element = j;
        uint64 deadline = uint64(block.number) + d.roundTimeoutBlocks;
        d.deadline = deadline;
        emit ArbitrationReady(id, j, deadline);
    }

    function _resolve(uint256 id, Dispute storage d, Outcome outcome, Resolution reason) private {
        d.phase = Phase.Resolved;
        d.outcome = outcome;
        emit DisputeResolved(id, outcome, d.rounds, reason);
    }

    function _requirePhase(uint256 id, Dispute storage d, Phase phase) private view {
        Phase current = d.phase;
        if (current == phase) return;
        if (current == Phase.None) revert DisputeNotFound(id);
        revert WrongPhase(id, current);
    }

    // ---------------------------------------------------------------- internals: arbitration

    function _checkArbitration(uint256 id, Dispute storage d) private view {
        _requirePhase(id, d, Phase.Arbitration);
        if (block.number > d.deadline) revert DeadlinePassed(id, d.deadline);
    }

    /// @dev The descriptor hashes chain to the agreed graph hash and `op` is element j's descriptor.
    function _checkGraph(Dispute storage d, Operation calldata op, bytes32[] calldata descriptorHashes, uint32 j)
        private
        view
    {
        TraceHeader storage header = d.proverHeader;
        if (descriptorHashes.length != header.opCount) {
            revert WrongLength("descriptorHashes", header.opCount, descriptorHashes.length);
        }
        bytes32 g = 0;
        for (uint256 k = 0; k < descriptorHashes.length; k++) {
            g = keccak256(abi.encode(g, descriptorHashes[k]));
        }
        if (g != header.graphHash) revert GraphMismatch(header.graphHash, g);
        bytes32 computed = descriptorHash(op);
        if (computed != descriptorHashes[j - 1]) revert DescriptorMismatch(j, descriptorHashes[j - 1], computed);
    }

    /// @dev The referee can run `op`: supported kernel, float32 output, one shape per input, every tensor
    ///      within `maxElements`.
    function _checkExecutable(Operation calldata op, uint32 maxElements) private pure {
        if (
            !ElementwiseReferee.isSupported(op.kernel) || keccak256(bytes(op.outputDtype)) != FLOAT32
                || op.inputShapes.length != op.inputs.length || _elements(op.outputShape) > maxElements
        ) revert NotDecidableOnchain(op.kernel);
        for (uint256 t = 0; t < op.inputShapes.length; t++) {
            if (_elements(op.inputShapes[t]) > maxElements) revert NotDecidableOnchain(op.kernel);
        }
    }

    /// @dev o_1 .. o_{j-1} chain from c_0 to the agreed c_{j-1}, and each input's bytes hash to the output of
    ///      the (earlier) element it names and fit its shape.
    function _checkInputs(
        Dispute storage d,
        Operation calldata op,
        bytes32[] calldata outputHashes,
        bytes[] calldata inputs,
        uint32 j
    ) private view {
        if (outputHashes.length != j - 1) revert WrongLength("outputHashes", j - 1, outputHashes.length);
        bytes32 c = keccak256(abi.encode(d.stateHash, uint256(d.step)));
        for (uint256 k = 0; k < outputHashes.length; k++) {
            c = keccak256(abi.encode(c, outputHashes[k]));
        }
        if (c != d.loHash) revert OutputsMismatch(d.loHash, c);
        if (inputs.length != op.inputs.length) revert WrongLength("inputs", op.inputs.length, inputs.length);
        for (uint256 t = 0; t < inputs.length; t++) {
            uint32 e = op.inputs[t];
            if (e == 0 || e >= j) revert InputOutOfRange(t, e);
            bytes32 h = keccak256(inputs[t]);
            if (h != outputHashes[e - 1]) revert InputMismatch(t, outputHashes[e - 1], h);
            if (inputs[t].length != _elements(op.inputShapes[t]) * 4) revert NotDecidableOnchain(op.kernel);
        }
    }

    /// @dev Element count of a shape (1 for a scalar, []), saturating far above any limit instead of overflowing.
    function _elements(uint32[] calldata shape) private pure returns (uint256 n) {
        n = 1;
        for (uint256 k = 0; k < shape.length; k++) {
            n *= shape[k];
            if (n > type(uint64).max) return type(uint64).max;
        }
    }

    // ---------------------------------------------------------------- internals: committee

    /// @notice Anyone draws a pending committee once the block after its anchor exists: members are drawn from
    ///         blockhash(anchor + 1), weighted by free stake (docs/disputes.md, "Committee"); the vote opens for
    ///         `committeeTimeoutBlocks`. No eligible member: the dispute resolves Void. Past the 256-block window the
    ///         anchor moves to this block instead (draw again after the next one).
    function drawCommittee(uint256 id) external {
        Dispute storage d = _disputes[id];
        _requirePhase(id, d, Phase.Committee);
        uint64 anchor = d.drawAnchor;
        if (anchor == 0) revert CommitteeAlreadyDrawn(id);
        if (block.number <= uint256(anchor) + 1) revert CommitteeNotDrawn(id, anchor + 2);
        bytes32 seed = blockhash(uint256(anchor) + 1);
        if (seed == bytes32(0)) {
            _anchorCommittee(id, d);
            return;
        }
        d.drawAnchor = 0;
        address[] memory members = _draw(id, d, seed);
        Seat[] storage seats = _committees[id];
        for (uint256 k = 0; k < members.length; k++) {
            seats.push(Seat(members[k], 0));
        }
        uint64 deadline = uint64(block.number) + d.committeeTimeoutBlocks;
        d.deadline = deadline;
        emit CommitteeDrawn(id, members, d.question, d.element, deadline);
        if (members.length == 0) _resolve(id, d, Outcome.Void, Resolution.Void);
    }

    /// @dev Opens the committee phase; the members are drawn later, from a block the caller cannot know
    ///      (`drawCommittee`), so no party picks its committee by picking its block.
    function _openCommittee(uint256 id, Dispute storage d, Question question, uint32 element) private {
        d.question = question;
        d.element = element;
        d.phase = Phase.Committee;
        _anchorCommittee(id, d);
    }

    /// @dev Anchors the draw at this block; the deadline leaves the draw block plus a full vote. A committee nobody
    ///      draws by then resolves on `timeout` with no votes (Void).
    function _anchorCommittee(uint256 id, Dispute storage d) private {
        uint64 anchor = uint64(block.number);
        d.drawAnchor = anchor;
        d.deadline = anchor + 1 + d.committeeTimeoutBlocks;
        emit CommitteeOpened(id, d.question, d.element, anchor);
    }

    /// @dev Walks at most MAX_DRAW_WALK entries of the registry's verifier list from `seed % count`; each VERIFIER
    ///      with free stake >= verifierStake that is not a party or `excluded` is a candidate weighing its free
    ///      stake. Seats are drawn without replacement, each with probability proportional to weight, so a
    ///      thousand empty sybil registrations weigh nothing and a packer must stake what it wants to win.
    function _draw(uint256 id, Dispute storage d, bytes32 seed) private view returns (address[] memory members) {
        Params memory p = config.params();
        (address[] memory candidates, uint256[] memory weights, uint256 total) = _candidates(d, uint256(seed), p.verifierStake);
        uint256 size = p.committeeSize;
        if (size > candidates.length) size = candidates.length;
        members = new address[](size);
        for (uint256 k = 0; k < size; k++) {
            uint256 r = uint256(keccak256(abi.encode(seed, id, k))) % total;
            uint256 c = 0;
            while (r >= weights[c]) {
                r -= weights[c];
                c++;
            }
            members[k] = candidates[c];
            total -= weights[c];
            weights[c] = 0;
        }
    }

    /// @dev The eligible entries of the walk (free stake >= `minimum`) and their weights (free stake), and the sum.
    function _candidates(Dispute storage d, uint256 seed, uint256 minimum)
        private
        view
        returns (address[] memory candidates, uint256[] memory weights, uint256 total)
    {
        uint256 count = registry.verifierCount();
        uint256 walk = count < MAX_DRAW_WALK ? count : MAX_DRAW_WALK;
        candidates = new address[](walk);
        weights = new uint256[](walk);
        uint256 taken = 0;
        for (uint256 k = 0; k < walk; k++) {
            address account = registry.verifierAt((seed % count + k) % count);
            if (account == d.prover || account == d.challenger || account == d.excluded) continue;
            if (!registry.hasRoles(account, VERIFIER_ROLE)) continue;
            (uint256 free,,,) = registry.stakeOf(account);
            if (free < minimum || free == 0) continue;
            candidates[taken] = account;
            weights[taken] = free;
            total += free;
            taken++;
        }
        // Shrink both arrays to the candidates taken.
        assembly {
            mstore(candidates, taken)
            mstore(weights, taken)
        }
    }

    /// @dev The choice with the most votes if it is unique (3 -> BothWrong); a tie or no vote -> Void.
    function _tally(Seat[] storage seats) private view returns (Outcome) {
        uint256[4] memory counts;
        for (uint256 k = 0; k < seats.length; k++) {
            counts[seats[k].vote] += 1;
        }
        uint256 best = 0;
        uint256 winner = 0;
        bool unique = false;
        for (uint256 c = VOTE_PROVER; c <= VOTE_NEITHER; c++) {
            if (counts[c] > best) {
                best = counts[c];
                winner = c;
                unique = true;
            } else if (counts[c] == best && best > 0) {
                unique = false;
            }
        }
        if (!unique) return Outcome.Void;
        if (winner == VOTE_PROVER) return Outcome.ProverWon;
        if (winner == VOTE_CHALLENGER) return Outcome.ChallengerWon;
        return Outcome.BothWrong;
    }
}
