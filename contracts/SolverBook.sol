// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, SOLVER_ROLE} from "./RoleRegistry.sol";
import {ProtocolConfig, MarketParams, WorkTable} from "./ProtocolConfig.sol";

/// @title SolverBook
/// @notice The market's posted price and the solvers' offers (docs/market.md, section 3). Solvers list an offer
///         (ask in wei per work unit, capacity in tasks at once); the protocol posts one price per work unit,
///         moved once per `priceEpochBlocks` by a bounded controller like EIP-1559's base fee:
///         `delta = clamp(priceStepBps * (u - target) / target, -priceStepBps, +priceStepBps)`,
///         `price = clamp(price * (10000 + delta) / 10000, priceFloor, priceCeiling)`, with utilisation
///         `u = demand * 10000 / capacity` in basis points (`2 * target` when capacity is 0 and demand is not).
///         The TaskMarket tells the book about every task (the hooks, `onlyMarket`); a claim takes the price of
///         its block, and only a listed solver below its capacity, whose ask is at most the price, may claim a
///         task whose `maxPrice` is at least the price.
/// @dev Demand = tasks in the pool + tasks claimed and not finished; capacity = the sum of listed capacities. The
///      controller steps lazily: every call that changes the book first applies the epochs elapsed since the last
///      step (at most MAX_STEPPED_EPOCHS, with the demand and capacity that held during them, since nothing
///      changed them in between); `currentPrice()` computes the same value as a view. The price starts at
///      `initialPrice` at the book's first touch. The book also holds the market's arithmetic for a submission
///      (`terms`): the escrow, the stage timeouts and the checks against the work table's limits.
///      It holds no ether.
contract SolverBook {
    struct Offer {
        /// wei per work unit: the lowest price this solver works for
        uint256 ask;
        /// tasks at once
        uint32 capacity;
        /// tasks claimed and not yet released
        uint32 active;
        /// counted in `capacity()` and allowed to claim
        bool listed;
    }

    /// @notice What a submission costs and how long each stage may take, under the current parameters.
    struct Terms {
        /// ceil(workUnits * maxPrice * (10000 + verifierFeeBps) / 10000)
        uint256 escrow;
        uint64 claimTimeout;
        /// trainingBaseSeconds + ceil(workUnits / minWorkUnitsPerSecond)
        uint64 trainingTimeout;
        uint64 verificationTimeout;
        uint16 verifierFeeBps;
    }

    uint256 public constant MAX_STEPPED_EPOCHS = 64;
    /// @notice Longest training timeout a submission may get (ProtocolConfig.MAX_TIMEOUT).
    uint64 public constant MAX_TIMEOUT = 365 days;
    uint256 private constant BPS = 10000;

    error NotOwner(address caller);
    error NotMarket();
    error MarketAlreadySet();
    error ZeroAddress();
    error NotRegistered(address account, uint8 role);
    error InvalidOffer(uint256 ask, uint32 capacity);
    error NotListed(address solver);
    error AtCapacity(address solver, uint32 capacity);
    error AskAbovePrice(address solver, uint256 ask, uint256 price);
    error PriceAboveMax(uint256 price, uint256 maxPrice);
    error InvalidWorkUnits(uint64 workUnits, uint64 maxWorkUnits);
    error InvalidMaxSteps(uint64 maxSteps, uint64 limit);
    error MaxPriceBelowFloor(uint256 maxPrice, uint256 priceFloor);
    error InvalidTimeout();

    event MarketSet(address market);
    event OfferSet(address indexed solver, uint256 ask, uint32 capacity);
    event OfferWithdrawn(address indexed solver);
    /// @notice The stored price changed (a controller step, or the first touch), with the demand and capacity it
    ///         was stepped with.
    event PriceUpdated(uint256 price, uint256 demand, uint256 capacity);
    /// @notice Demand or capacity changed (a submission, a task finished or cancelled, an offer listed or unlisted).
    event BookUpdated(uint256 demand, uint256 capacity);
    /// @notice `solver` holds `active` claimed tasks (after a claim or a release).
    event ActiveUpdated(address indexed solver, uint32 active);

    RoleRegistry public immutable registry;
    ProtocolConfig public immutable config;
    address public immutable owner;
    address public market;

    uint256 public demand;
    uint256 public capacity;
    /// @notice The price as of `epochStart` (0 before the first touch).
    uint256 public storedPrice;
    /// @notice First block of the epoch the stored price belongs to.
    uint64 public epochStart;

    mapping(address => Offer) private _offers;

    constructor(address registry_, address config_) {
        if (registry_ == address(0) || config_ == address(0)) revert ZeroAddress();
        registry = RoleRegistry(registry_);
        config = ProtocolConfig(config_);
        owner = msg.sender;
    }

    modifier onlyMarket() {
        if (msg.sender != market) revert NotMarket();
        _;
    }

    /// @notice Names the TaskMarket allowed to call the hooks. Owner only, once.
    function setMarket(address market_) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (market != address(0)) revert MarketAlreadySet();
        if (market_ == address(0)) revert ZeroAddress();
        market = market_;
        emit MarketSet(market_);
    }

    // ---------------------------------------------------------------- solvers

    /// @notice Lists (or updates) the caller's offer: `ask` wei per work unit, `capacity` tasks at once. Needs the
    ///         SOLVER role. Lowering the capacity below the tasks it holds is allowed (it claims no more).
    function setOffer(uint256 ask, uint32 capacity_) external {
        if (!registry.hasRoles(msg.sender, SOLVER_ROLE)) revert NotRegistered(msg.sender, SOLVER_ROLE);
        if (ask == 0 || capacity_ == 0) revert InvalidOffer(ask, capacity_);
        _poke();
        Offer storage o = _offers[msg.sender];
        uint256 total = capacity + capacity_;
        if (o.listed) total -= o.capacity;
        o.ask = ask;
        o.capacity = capacity_;
        o.listed = true;
        capacity = total;
        emit OfferSet(msg.sender, ask, capacity_);
        emit BookUpdated(demand, total);
    }

    /// @notice Unlists the caller's offer: its capacity leaves the book at once; the tasks it holds go on and are
    ///         released as they finish.
    function withdrawOffer() external {
        Offer storage o = _offers[msg.sender];
        if (!o.listed) revert NotListed(msg.sender);
        _poke();
        uint256 total = capacity - o.capacity;
        o.listed = false;
        capacity = total;
        emit OfferWithdrawn(msg.sender);
        emit BookUpdated(demand, total);
    }

    // ---------------------------------------------------------------- market hooks

    /// @notice A task was submitted: checks its size against the work table's limits and its maximum price
    ///         against the floor, counts it in the demand and returns its terms.
    function onSubmit(uint64 workUnits, uint64 maxSteps, uint256 maxPrice) external onlyMarket returns (Terms memory t) {
        MarketParams memory m = config.marketParams();
        t = _terms(m, workUnits, maxSteps, maxPrice);
        _step(m);
        uint256 d = demand + 1;
        demand = d;
        emit BookUpdated(d, capacity);
    }

    /// @notice `solver` claims a task whose submitter pays at most `maxPrice`: returns the price of this block,
    ///         after checking that the solver is listed, below its capacity, asks at most the price, and that the
    ///         price is at most `maxPrice`.
    function onClaim(address solver, uint256 maxPrice) external onlyMarket returns (uint256 price) {
        price = _poke();
        Offer storage o = _offers[solver];
        if (!o.listed) revert NotListed(solver);
        uint32 active = o.active;
        if (active >= o.capacity) revert AtCapacity(solver, o.capacity);
        if (o.ask > price) revert AskAbovePrice(solver, o.ask, price);
        if (price > maxPrice) revert PriceAboveMax(price, maxPrice);
        o.active = active + 1;
        emit ActiveUpdated(solver, active + 1);
    }

    /// @notice `solver`'s claimed task left it: finished (`done`: settled or expired, it leaves the demand) or
    ///         back in the pool (a rejection, a wrong proof, a training timeout). A withdrawn solver is released
    ///         the same way (its capacity already left the book).
    function onRelease(address solver, bool done) external onlyMarket {
        _poke();
        Offer storage o = _offers[solver];
        uint32 active = o.active - 1;
        o.active = active;
        emit ActiveUpdated(solver, active);
        if (done) {
            uint256 d = demand - 1;
            demand = d;
            emit BookUpdated(d, capacity);
        }
    }

    /// @notice A task nobody held left the pool (expired): it leaves the demand.
    function onCancel() external onlyMarket {
        _poke();
        uint256 d = demand - 1;
        demand = d;
        emit BookUpdated(d, capacity);
    }

    // ---------------------------------------------------------------- views

    function offerOf(address solver) external view returns (Offer memory) {
        return _offers[solver];
    }

    /// @notice The price a claim in this block pays (the stored price stepped to this block, as `_poke` would).
    function currentPrice() external view returns (uint256 price) {
        (price,) = _stepped(config.marketParams());
    }

    /// @notice The terms of a task of `workUnits` over `maxSteps` steps paying at most `maxPrice` per work unit,
    ///         under the current parameters. Reverts when a limit is exceeded: `workUnits` in (0, maxWorkUnits],
    ///         `maxSteps` in (0, maxSteps], `maxPrice >= priceFloor`, training timeout <= MAX_TIMEOUT.
    function terms(uint64 workUnits, uint64 maxSteps, uint256 maxPrice) external view returns (Terms memory) {
        return _terms(config.marketParams(), workUnits, maxSteps, maxPrice);
    }

    // ---------------------------------------------------------------- internals

    function _terms(MarketParams memory m, uint64 workUnits, uint64 maxSteps, uint256 maxPrice)
        private
        view
        returns (Terms memory t)
    {
        WorkTable memory w = config.workTable();
        if (workUnits == 0 || workUnits > w.maxWorkUnits) revert InvalidWorkUnits(workUnits, w.maxWorkUnits);
        if (maxSteps == 0 || maxSteps > w.maxSteps) revert InvalidMaxSteps(maxSteps, w.maxSteps);
        if (maxPrice < m.priceFloor) revert MaxPriceBelowFloor(maxPrice, m.priceFloor);
        uint256 factor = uint256(workUnits) * (BPS + m.verifierFeeBps);
        // Saturating: a maxPrice so large that the escrow overflows can never be paid.
        t.escrow = maxPrice > type(uint256).max / factor ? type(uint256).max : (maxPrice * factor + BPS - 1) / BPS;
        uint256 training = uint256(m.trainingBaseSeconds) + (uint256(workUnits) + m.minWorkUnitsPerSecond - 1) / m.minWorkUnitsPerSecond;
        if (training > MAX_TIMEOUT) revert InvalidTimeout();
        t.claimTimeout = m.claimTimeoutSeconds;
        t.trainingTimeout = uint64(training);
        t.verificationTimeout = m.verificationTimeoutSeconds;
        t.verifierFeeBps = m.verifierFeeBps;
    }

    // ---------------------------------------------------------------- controller

    /// @dev Applies the elapsed epochs and returns the price of this block.
    function _poke() private returns (uint256 price) {
        return _step(config.marketParams());
    }

    function _step(MarketParams memory m) private returns (uint256 price) {
        uint64 start;
        (price, start) = _stepped(m);
        if (start != epochStart) epochStart = start;
        if (price != storedPrice) {
            storedPrice = price;
            emit PriceUpdated(price, demand, capacity);
        }
    }

    /// @dev The stored price stepped over the whole epochs since `epochStart` (at most MAX_STEPPED_EPOCHS of them)
    ///      and clamped to the current bounds, with the start of the epoch this block is in.
    function _stepped(MarketParams memory m) private view returns (uint256 price, uint64 start) {
        price = storedPrice;
        start = epochStart;
        if (price == 0) return (m.initialPrice, uint64(block.number));
        uint256 epochs = (block.number - start) / m.priceEpochBlocks;
        start += uint64(epochs * m.priceEpochBlocks);
        if (epochs > MAX_STEPPED_EPOCHS) epochs = MAX_STEPPED_EPOCHS;
        if (epochs != 0) {
            uint256 factor = uint256(int256(BPS) + _delta(m));
            for (uint256 i = 0; i < epochs; i++) {
                price = _clamp(price * factor / BPS, m);
            }
        }
        price = _clamp(price, m);
    }

    /// @dev priceStepBps * (u - target) / target, clamped to +-priceStepBps (u and target in basis points).
    function _delta(MarketParams memory m) private view returns (int256 delta) {
        int256 target = int256(uint256(m.targetUtilizationBps));
        int256 step = int256(uint256(m.priceStepBps));
        uint256 c = capacity;
        uint256 d = demand;
        int256 u = c == 0 ? (d == 0 ? int256(0) : 2 * target) : int256(d * BPS / c);
        delta = step * (u - target) / target;
        if (delta > step) delta = step;
        if (delta < -step) delta = -step;
    }

    function _clamp(uint256 price, MarketParams memory m) private pure returns (uint256) {
        if (price < m.priceFloor) return m.priceFloor;
        if (price > m.priceCeiling) return m.priceCeiling;
        return price;
    }
}
