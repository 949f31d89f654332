// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// The longest task range in steps, `ProtocolConfig.MAX_STEPS` (file level, so that the market checks a schedule's
// interval against it too): a task packs its steps and its interval in 40 bits.
uint64 constant MAX_TASK_STEPS = 2 ** 40 - 1;

/// @notice Every tunable of the dispute and incentive layer (docs/disputes.md, "ProtocolConfig"). Declared at
///         file level so that the market and the game import it as `Params`. Amounts are wei; windows and
///         timeouts are block counts; `*Bps` are basis points (10000 = 100%).
struct Params {
    // Packed into four slots (seven before): what a claim, a verification claim and a settlement read sits in the
    // first, so each reads one cold slot (docs/benchmarks.md, "Gas of the honest lifecycle"). Stakes are at most
    // 2^96 - 1 wei and deposits 2^128 - 1, far beyond any real amount.
    /// solver's stake locked per task
    uint96 solverStake;
    /// verifier's stake locked per task; also the free stake a committee member needs
    uint96 verifierStake;
    /// probability (basis points) that a task is a forced error
    uint16 forcedErrorBps;
    /// tax on every fee paid, into the jackpot
    uint16 taxBps;
    /// share of a slashed amount to the winner of the dispute
    uint16 slashWinnerBps;
    /// share of a slashed amount to the treasury
    uint16 slashTreasuryBps;
    /// a whistleblower's deposit per challenge
    uint128 challengeDeposit;
    /// most one forced error pays out in total
    uint128 jackpotCap;
    /// challenge commitments / rejection disputes allowed while block.number <= verdictBlock + window
    uint64 challengeWindowBlocks;
    /// after the challenge window: whistleblowers open the challenges they committed to
    uint64 openWindowBlocks;
    /// after the open window: the solver may reveal a forced error
    uint64 revealWindowBlocks;
    /// blocks each dispute round (and the arbitration step) may take
    uint64 roundTimeoutBlocks;
    /// blocks a committee has to vote
    uint64 committeeTimeoutBlocks;
    /// share of a slashed amount burned
    uint16 slashBurnBps;
    /// whistleblowers per task (queued); also the most catchers paid
    uint8 maxChallengers;
    /// members drawn when the contract cannot decide itself
    uint8 committeeSize;
    /// largest tensor (elements) the contract re-executes itself
    uint32 maxOnchainElements;
}

/// @notice The market's tunables (docs/market.md, "Parameters"): the posted price's controller, the verifier fee, the
///         training-timeout slash and the stage timeouts (seconds). Prices are wei per work unit.
///         Prices are 128-bit (checkMarketParams bounds them by MAX_PRICE < 2^128), so the struct fills 3 slots, and
///         each SolverBook read of a task's stages costs three cold slots (docs/benchmarks.md, "Gas of the honest
///         lifecycle").
struct MarketParams {
    /// the price the SolverBook starts from (at its first touch)
    uint128 initialPrice;
    /// the controller's bounds
    uint128 priceFloor;
    uint128 priceCeiling;
    /// most the price moves per epoch
    uint16 priceStepBps;
    /// the utilisation (demand / capacity) the controller steers to
    uint16 targetUtilizationBps;
    /// blocks per controller step
    uint32 priceEpochBlocks;
    /// verifier pay as a share of solver pay
    uint16 verifierFeeBps;
    /// share of the solver's locked stake slashed on a training timeout
    uint16 timeoutSlashBps;
    /// how long a task waits in the pool before it can be expired
    uint64 claimTimeoutSeconds;
    /// training deadline = trainingBaseSeconds + ceil(workUnits / minWorkUnitsPerSecond)
    uint64 trainingBaseSeconds;
    uint64 minWorkUnitsPerSecond;
    /// commit -> verifier claim, and verifier claim -> verdict
    uint64 verificationTimeoutSeconds;
}

/// @notice The work estimate's weights (milli-units per FLOP of each operation class) and the protocol limits that
///         bound every loop of a job (docs/market.md, section 1). Read by the estimator off chain; the market
///         enforces `maxSteps` and `maxWorkUnits` per task.
struct WorkTable {
    uint32 matmulMilli;
    uint32 convMilli;
    uint32 elementwiseMilli;
    uint32 transcendentalMilli;
    /// weighted FLOPs per work unit
    uint32 flopsPerWorkUnit;
    uint64 maxSteps;
    uint32 maxLayers;
    uint64 maxTensorElements;
    uint32 maxBatchSize;
    uint64 maxWorkUnits;
}

/// @title ProtocolConfig
/// @notice The one on-chain configuration of stakes, windows, shares and limits, replaceable by its owner.
/// @dev Readers (TaskMarket, PinpointGame) read `params()` when they need a value; the market snapshots the
///      stake amounts into each task when it locks them, so a change here never unlocks or slashes a different
///      amount than was locked. Windows and timeouts read at the moment a window opens apply to it.
///      `marketParams()` and `workTable()` (docs/market.md) are set like `params()`, each checked field by field;
///      the market snapshots a task's timeouts and verifier fee at its submission.
contract ProtocolConfig {
    uint16 public constant BPS = 10000;
    uint64 public constant MAX_BLOCKS = 100000;
    uint32 public constant MAX_ONCHAIN_ELEMENTS_LIMIT = 65536;
    /// @notice Longest stage timeout (seconds): keeps every deadline far from uint64 overflow.
    uint64 public constant MAX_TIMEOUT = 365 days;
    /// @notice Highest price ceiling (wei per work unit): keeps escrow arithmetic far from overflow.
    uint256 public constant MAX_PRICE = 1e30;
    /// @notice Longest task range (steps): a task packs its steps, and its schedule's interval, in 40 bits.
    uint64 public constant MAX_STEPS = MAX_TASK_STEPS;
    /// @notice Highest operation weight (1000 = one weighted FLOP per FLOP).
    uint32 public constant MAX_WEIGHT_MILLI = 1_000_000;

    error NotOwner(address caller);
    error ZeroAddress();
    /// @param name the field that failed its check ("slashShares" when the three slash shares do not sum to 10000)
    error InvalidParameter(string name);

    event ParamsUpdated(Params params);
    event MarketParamsUpdated(MarketParams params);
    event WorkTableUpdated(WorkTable table);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    address public owner;
    Params private _params;
    MarketParams private _market;
    WorkTable private _work;

    constructor() {
        owner = msg.sender;
        Params memory p = defaultParams();
        MarketParams memory m = defaultMarketParams();
        WorkTable memory w = defaultWorkTable();
        _params = p;
        _market = m;
        _work = w;
        emit OwnershipTransferred(address(0), msg.sender);
        emit ParamsUpdated(p);
        emit MarketParamsUpdated(m);
        emit WorkTableUpdated(w);
    }

    /// @notice The defaults of docs/disputes.md (what the constructor sets).
    function defaultParams() public pure returns (Params memory) {
        return Params({
            solverStake: 1 ether,
            verifierStake: 0.5 ether,
            challengeDeposit: 0.2 ether,
            challengeWindowBlocks: 5,
            openWindowBlocks: 3,
            revealWindowBlocks: 3,
            roundTimeoutBlocks: 10,
            committeeTimeoutBlocks: 20,
            taxBps: 500,
            slashWinnerBps: 5000,
            slashTreasuryBps: 3000,
            slashBurnBps: 2000,
            forcedErrorBps: 1000,
            jackpotCap: 1 ether,
            maxChallengers: 3,
            committeeSize: 3,
            maxOnchainElements: 4096
        });
    }

    /// @notice The market defaults of docs/market.md ("Parameters").
    function defaultMarketParams() public pure returns (MarketParams memory) {
        return MarketParams({
            initialPrice: 1e13,
            priceFloor: 1e11,
            priceCeiling: 1e16,
            priceStepBps: 1250,
            targetUtilizationBps: 8000,
            priceEpochBlocks: 5,
            verifierFeeBps: 2000,
            timeoutSlashBps: 2500,
            claimTimeoutSeconds: 3600,
            trainingBaseSeconds: 120,
            minWorkUnitsPerSecond: 50,
            verificationTimeoutSeconds: 600
        });
    }

    /// @notice The work table defaults of docs/market.md (section 1).
    function defaultWorkTable() public pure returns (WorkTable memory) {
        return WorkTable({
            matmulMilli: 1000,
            convMilli: 1000,
            elementwiseMilli: 1000,
            transcendentalMilli: 4000,
            flopsPerWorkUnit: 1_000_000,
            maxSteps: 100_000,
            maxLayers: 32,
            maxTensorElements: 16_777_216,
            maxBatchSize: 1024,
            maxWorkUnits: 1_000_000_000
        });
    }

    function params() external view returns (Params memory) {
        return _params;
    }

    /// @notice `params().solverStake` alone (one slot): what the SolverBook weighs demand and offers in.
    function solverStake() external view returns (uint256) {
        return _params.solverStake;
    }

    /// @notice `params().verifierStake` alone (one slot): what a verification claim locks.
    function verifierStake() external view returns (uint256) {
        return _params.verifierStake;
    }

    /// @notice What a solver's claim snapshots, `params().solverStake` and `params().forcedErrorBps` (one slot).
    function claimParams() external view returns (uint256 stake, uint16 forcedErrorBps) {
        return (_params.solverStake, _params.forcedErrorBps);
    }

    /// @notice The windows a verdict opens, `params().challengeWindowBlocks`, `openWindowBlocks` and
    ///         `revealWindowBlocks` (one slot).
    function verdictWindows() external view returns (uint64 challengeBlocks, uint64 openBlocks, uint64 revealBlocks) {
        Params storage p = _params;
        return (p.challengeWindowBlocks, p.openWindowBlocks, p.revealWindowBlocks);
    }

    /// @notice `params().taxBps` alone (one slot): the tax on an accepted settlement's fees.
    function taxBps() external view returns (uint16) {
        return _params.taxBps;
    }

    function marketParams() external view returns (MarketParams memory) {
        return _market;
    }

    function workTable() external view returns (WorkTable memory) {
        return _work;
    }

    /// @notice Replaces every parameter at once after checking each field (InvalidParameter names the first
    ///         field that fails).
    function setParams(Params calldata p) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        check(p);
        _params = p;
        emit ParamsUpdated(p);
    }

    /// @notice Replaces the market parameters at once after checking each field (see `checkMarketParams`).
    function setMarketParams(MarketParams calldata m) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        checkMarketParams(m);
        _market = m;
        emit MarketParamsUpdated(m);
    }

    /// @notice Replaces the work table at once after checking each field (see `checkWorkTable`).
    function setWorkTable(WorkTable calldata w) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        checkWorkTable(w);
        _work = w;
        emit WorkTableUpdated(w);
    }

    function transferOwnership(address newOwner) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (newOwner == address(0)) revert ZeroAddress();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// @notice Reverts `InvalidParameter(name)` for the first field out of range; returns quietly otherwise.
    function check(Params memory p) public pure {
        if (uint256(p.slashWinnerBps) + p.slashTreasuryBps + p.slashBurnBps != BPS) revert InvalidParameter("slashShares");
        if (p.taxBps > BPS) revert InvalidParameter("taxBps");
        if (p.forcedErrorBps > BPS) revert InvalidParameter("forcedErrorBps");
        _checkBlocks(p.challengeWindowBlocks, "challengeWindowBlocks");
        _checkBlocks(p.openWindowBlocks, "openWindowBlocks");
        _checkBlocks(p.revealWindowBlocks, "revealWindowBlocks");
        _checkBlocks(p.roundTimeoutBlocks, "roundTimeoutBlocks");
        _checkBlocks(p.committeeTimeoutBlocks, "committeeTimeoutBlocks");
        if (p.maxChallengers == 0) revert InvalidParameter("maxChallengers");
        if (p.committeeSize == 0) revert InvalidParameter("committeeSize");
        if (p.maxOnchainElements == 0 || p.maxOnchainElements > MAX_ONCHAIN_ELEMENTS_LIMIT) {
            revert InvalidParameter("maxOnchainElements");
        }
    }

    /// @notice Reverts `InvalidParameter(name)` for the first market field out of range: 0 < priceFloor <=
    ///         initialPrice <= priceCeiling <= MAX_PRICE, priceStepBps in (0, 5000], targetUtilizationBps in
    ///         (0, 10000], priceEpochBlocks in (0, MAX_BLOCKS], both fee/slash shares <= 10000, the claim and
    ///         verification timeouts in (0, MAX_TIMEOUT], trainingBaseSeconds <= MAX_TIMEOUT,
    ///         minWorkUnitsPerSecond > 0.
    function checkMarketParams(MarketParams memory m) public pure {
        if (m.priceFloor == 0) revert InvalidParameter("priceFloor");
        if (m.priceCeiling < m.priceFloor || m.priceCeiling > MAX_PRICE) revert InvalidParameter("priceCeiling");
        if (m.initialPrice < m.priceFloor || m.initialPrice > m.priceCeiling) revert InvalidParameter("initialPrice");
        if (m.priceStepBps == 0 || m.priceStepBps > BPS / 2) revert InvalidParameter("priceStepBps");
        if (m.targetUtilizationBps == 0 || m.targetUtilizationBps > BPS) revert InvalidParameter("targetUtilizationBps");
        if (m.priceEpochBlocks == 0 || m.priceEpochBlocks > MAX_BLOCKS) revert InvalidParameter("priceEpochBlocks");
        if (m.verifierFeeBps > BPS) revert InvalidParameter("verifierFeeBps");
        if (m.timeoutSlashBps > BPS) revert InvalidParameter("timeoutSlashBps");
        _checkSeconds(m.claimTimeoutSeconds, "claimTimeoutSeconds");
        if (m.trainingBaseSeconds > MAX_TIMEOUT) revert InvalidParameter("trainingBaseSeconds");
        if (m.minWorkUnitsPerSecond == 0) revert InvalidParameter("minWorkUnitsPerSecond");
        _checkSeconds(m.verificationTimeoutSeconds, "verificationTimeoutSeconds");
    }

    /// @notice Reverts `InvalidParameter(name)` for the first work-table field out of range: every weight in
    ///         (0, MAX_WEIGHT_MILLI], flopsPerWorkUnit and every limit above 0, maxSteps at most MAX_STEPS.
    function checkWorkTable(WorkTable memory w) public pure {
        _checkWeight(w.matmulMilli, "matmulMilli");
        _checkWeight(w.convMilli, "convMilli");
        _checkWeight(w.elementwiseMilli, "elementwiseMilli");
        _checkWeight(w.transcendentalMilli, "transcendentalMilli");
        if (w.flopsPerWorkUnit == 0) revert InvalidParameter("flopsPerWorkUnit");
        if (w.maxSteps == 0 || w.maxSteps > MAX_STEPS) revert InvalidParameter("maxSteps");
        if (w.maxLayers == 0) revert InvalidParameter("maxLayers");
        if (w.maxTensorElements == 0) revert InvalidParameter("maxTensorElements");
        if (w.maxBatchSize == 0) revert InvalidParameter("maxBatchSize");
        if (w.maxWorkUnits == 0) revert InvalidParameter("maxWorkUnits");
    }

    function _checkSeconds(uint64 seconds_, string memory name) private pure {
        if (seconds_ == 0 || seconds_ > MAX_TIMEOUT) revert InvalidParameter(name);
    }

    function _checkWeight(uint32 milli, string memory name) private pure {
        if (milli == 0 || milli > MAX_WEIGHT_MILLI) revert InvalidParameter(name);
    }

    function _checkBlocks(uint64 blocks, string memory name) private pure {
        if (blocks == 0 || blocks > MAX_BLOCKS) revert InvalidParameter(name);
    }
}
