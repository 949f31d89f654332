// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, SOLVER_ROLE} from "./RoleRegistry.sol";
import {ProtocolConfig, MarketParams, WorkTable} from "./ProtocolConfig.sol";

/// @title SolverBook
/// @notice The market's posted price and the solvers' offers (docs/market.md, section 3). Solvers list an offer
///         (ask in wei per work unit, capacity in tasks at once, every task of it backed by `solverStake`); the
///         protocol posts one price per work unit, moved once per `priceEpochBlocks` by a bounded controller like
///         EIP-1559's base fee: `delta = clamp(priceStepBps * (u - target) / target, -priceStepBps, +priceStepBps)`,
///         `price = clamp(price * (10000 + delta) / 10000, priceFloor, priceCeiling)`, where `u` is the median of
///         the utilisation sampled at the last WINDOW epoch ends. A sample is `demand / capacity` in basis points
///         (demand in basis points of a slot over capacity in slots; `2 * target` when capacity is 0 and demand is
///         not), capped at `2 * target` (a full step).
///         The TaskMarket tells the book about every task (the hooks, `onlyMarket`); a claim takes the price of
///         its block, and only a listed solver below its capacity, whose ask is at most the price, may claim a
///         task whose `maxPrice` is at least the price.
/// @dev Both sides of the signal are measured in task slots, each worth one `solverStake`, so moving the price
///      costs money on either side (docs/security.md, finding 5):
///      - capacity = the sum of listed capacities, and listing `c` tasks needs `c * solverStake` of stake (free +
///        locked); an offer whose stake no longer covers it can be pruned by anyone;
///      - demand = the sum of the live tasks' weights, in basis points of a slot: a task weighs the pay of its work
///        at the price it was counted at, `workUnits * price`, as a share of `solverStake`, at most one slot
///        (10000). A task counts from its submission when it is claimable then (no parent, `maxPrice` at least
///        the price) and otherwise from its claim; the TaskMarket keeps the weight and hands it back when the
///        task leaves (settled, expired, cancelled).
///      The controller steps lazily: every call that changes the book first applies the epochs elapsed since the
///      last step (at most MAX_STEPPED_EPOCHS, each sampling the demand and capacity that held at its end, since
///      nothing changed them in between); `currentPrice()` computes the same value as a view. The price starts at
///      `initialPrice` at the book's first touch, with every sample of the window at the target. The book also
///      holds the market's arithmetic for a submission (`terms`): the escrow, the stage timeouts and the checks
///      against the work table's limits. It holds no ether.
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
        /// the task's weight in the demand (basis points of a slot; 0: not counted until it is claimed)
        uint16 demandWeight;
    }

    uint256 public constant MAX_STEPPED_EPOCHS = 64;
    /// @notice Longest training timeout a submission may get (ProtocolConfig.MAX_TIMEOUT).
    uint64 public constant MAX_TIMEOUT = 365 days;
    /// @notice Epoch-end utilisation samples the controller takes the median of.
    uint256 public constant WINDOW = 7;
    uint256 private constant HALF = WINDOW / 2;
    uint256 private constant BPS = 10000;
    uint256 private constant SAMPLE_BITS = 16;
    uint256 private constant WINDOW_MASK = (uint256(1) << (SAMPLE_BITS * WINDOW)) - 1;

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
    /// @notice `solver` holds `stake` (free + locked), less than the `needed` its offer's capacity asks for
    ///         (capacity * solverStake).
    error OfferNotBacked(address solver, uint256 stake, uint256 needed);
    /// @notice `solver`'s stake still covers its offer: it cannot be pruned.
    error OfferBacked(address solver, uint256 stake, uint256 needed);

    event MarketSet(address market);
    event OfferSet(address indexed solver, uint256 ask, uint32 capacity);
    event OfferWithdrawn(address indexed solver);
    /// @notice `by` unlisted `solver`'s offer: its `stake` fell below the `needed` (OfferWithdrawn follows).
    event OfferPruned(address indexed solver, address indexed by, uint256 stake, uint256 needed);
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
    // Three slots where there were five: each market hook reads them all (docs/benchmarks.md, "Gas of the honest
    // lifecycle"). Demand and capacity sit beside the market address (the hooks' caller check), the epoch start beside
    // its sample window (both change when an epoch ends), the price alone. Demand and capacity are 48-bit: checked
    // sums of 16-bit weights and 32-bit offer capacities, far below 2^48 for any real book.
    address public market;
    uint48 private _demand;
    uint48 private _capacity;
    /// @notice First block of the epoch the stored price belongs to.
    uint64 public epochStart;
    /// @dev The last WINDOW utilisation samples, 16 bits each, newest in the low bits (same slot as epochStart).
    uint112 private _window;
    /// @dev The price as of `epochStart` (0 before the first touch; at most ProtocolConfig.MAX_PRICE < 2^128).
    uint128 private _storedPrice;

    mapping(address => Offer) private _offers;

    constructor(address registry_, address config_) {
        if (registry_ == address(0) || config_ == address(0)) revert ZeroAddress();
        registry = RoleRegistry(registry_);
        config = ProtocolConfig(config_);
        owner = msg.sender;
    }

    /// @notice The live tasks' weights, in basis points of a slot (10000: one task worth one solverStake).
    function demand() public view returns (uint256) {
        return _demand;
    }

    /// @notice Tasks at once over the listed offers (each backed by solverStake).
    function capacity() public view returns (uint256) {
        return _capacity;
    }

    /// @notice The price as of `epochStart` (0 before the first touch).
    function storedPrice() public view returns (uint256) {
        return _storedPrice;
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
    ///         SOLVER role and `capacity * solverStake` of stake (free + locked; OfferNotBacked). Lowering the
    ///         capacity below the tasks it holds is allowed (it claims no more).
    function setOffer(uint256 ask, uint32 capacity_) external {
        if (!registry.hasRoles(msg.sender, SOLVER_ROLE)) revert NotRegistered(msg.sender, SOLVER_ROLE);
        if (ask == 0 || capacity_ == 0) revert InvalidOffer(ask, capacity_);
        (uint256 stake, uint256 needed) = _backing(msg.sender, capacity_);
        if (stake < needed) revert OfferNotBacked(msg.sender, stake, needed);
        _poke();
        Offer storage o = _offers[msg.sender];
        uint48 total = _capacity + capacity_;
        if (o.listed) total -= o.capacity;
        o.ask = ask;
        o.capacity = capacity_;
        o.listed = true;
        _capacity = total;
        emit OfferSet(msg.sender, ask, capacity_);
        emit BookUpdated(_demand, total);
    }

    /// @notice Unlists the caller's offer: its capacity leaves the book at once; the tasks it holds go on and are
    ///         released as they finish.
    function withdrawOffer() external {
        Offer storage o = _offers[msg.sender];
        if (!o.listed) revert NotListed(msg.sender);
        _unlist(msg.sender, o);
    }

    /// @notice Anyone unlists `solver`'s offer once its stake (free + locked) no longer covers
    ///         `capacity * solverStake` (it unbonded, was slashed, or solverStake rose): listed capacity the solver
    ///         cannot hold does not count. OfferBacked while it still does.
    function pruneOffer(address solver) external {
        Offer storage o = _offers[solver];
        if (!o.listed) revert NotListed(solver);
        (uint256 stake, uint256 needed) = _backing(solver, o.capacity);
        if (stake >= needed) revert OfferBacked(solver, stake, needed);
        emit OfferPruned(solver, msg.sender, stake, needed);
        _unlist(solver, o);
    }

    // ---------------------------------------------------------------- market hooks

    /// @notice A task was submitted: checks its size against the work table's limits and its maximum price
    ///         against the floor, and returns its terms. A task claimable now (`hasParent` false, `maxPrice` at
    ///         least the price) enters the demand with its weight (`terms.demandWeight`); any other waits for its
    ///         claim (weight 0).
    function onSubmit(uint64 workUnits, uint64 maxSteps, uint256 maxPrice, bool hasParent)
        external
        onlyMarket
        returns (Terms memory t)
    {
        MarketParams memory m = config.marketParams();
        t = _terms(m, workUnits, maxSteps, maxPrice);
        uint256 price = _step(m);
        if (!hasParent && maxPrice >= price) t.demandWeight = _count(workUnits, price);
    }

    /// @notice `solver` claims a task of `workUnits` whose submitter pays at most `maxPrice` and that weighs
    ///         `weight` in the demand: returns the price of this block, after checking that the solver is listed,
    ///         below its capacity, asks at most the price, and that the price is at most `maxPrice`; and the
    ///         task's weight, counted now at this price if it was not yet (`weight` 0).
    function onClaim(address solver, uint256 maxPrice, uint64 workUnits, uint16 weight)
        external
        onlyMarket
        returns (uint256 price, uint16 demandWeight)
    {
        price = _poke();
        Offer storage o = _offers[solver];
        if (!o.listed) revert NotListed(solver);
        uint32 active = o.active;
        if (active >= o.capacity) revert AtCapacity(solver, o.capacity);
        if (o.ask > price) revert AskAbovePrice(solver, o.ask, price);
        if (price > maxPrice) revert PriceAboveMax(price, maxPrice);
        o.active = active + 1;
        emit ActiveUpdated(solver, active + 1);
        demandWeight = weight == 0 ? _count(workUnits, price) : weight;
    }

    /// @notice `solver`'s claimed task left it: finished (`done`: settled or expired, its `weight` leaves the
    ///         demand) or back in the pool (a rejection, a wrong proof, a training timeout: it keeps its weight).
    ///         A withdrawn solver is released the same way (its capacity already left the book).
    function onRelease(address solver, bool done, uint16 weight) external onlyMarket {
        _poke();
        Offer storage o = _offers[solver];
        uint32 active = o.active - 1;
        o.active = active;
        emit ActiveUpdated(solver, active);
        if (done) _uncount(weight);
    }

    /// @notice A task nobody held left the pool (expired): its `weight` leaves the demand.
    function onCancel(uint16 weight) external onlyMarket {
        _poke();
        _uncount(weight);
    }

    // ---------------------------------------------------------------- views

    function offerOf(address solver) external view returns (Offer memory) {
        return _offers[solver];
    }

    /// @notice The price a claim in this block pays (the stored price stepped to this block, as `_poke` would).
    function currentPrice() external view returns (uint256 price) {
        (price,,) = _stepped(config.marketParams());
    }

    /// @notice The utilisation samples of the last WINDOW epoch ends as of this block (oldest first, basis points)
    ///         and their median, the `u` of the next step if nothing changes.
    function utilizationWindow() external view returns (uint16[WINDOW] memory samples, uint16 median) {
        (,, uint256 window) = _stepped(config.marketParams());
        for (uint256 i = 0; i < WINDOW; i++) {
            samples[WINDOW - 1 - i] = uint16(window >> (SAMPLE_BITS * i));
        }
        median = uint16(_median(window));
    }

    /// @notice The weight (basis points of a slot) a task of `workUnits` counted at `price` adds to the demand:
    ///         `workUnits * price * 10000 / solverStake`, at most 10000.
    function demandWeightOf(uint64 workUnits, uint256 price) external view returns (uint16) {
        return _weight(workUnits, price, config.solverStake());
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

    // ---------------------------------------------------------------- offers and weights

    function _unlist(address solver, Offer storage o) private {
        _poke();
        uint48 total = _capacity - o.capacity;
        o.listed = false;
        _capacity = total;
        emit OfferWithdrawn(solver);
        emit BookUpdated(_demand, total);
    }

    /// @dev `solver`'s stake (free + locked) and what an offer of `capacity_` tasks needs.
    function _backing(address solver, uint32 capacity_) private view returns (uint256 stake, uint256 needed) {
        (uint256 free, uint256 locked,,) = registry.stakeOf(solver);
        stake = free + locked;
        needed = uint256(capacity_) * config.solverStake();
    }

    /// @dev Adds a task of `workUnits` counted at `price` to the demand; returns its weight.
    function _count(uint64 workUnits, uint256 price) private returns (uint16 weight) {
        weight = _weight(workUnits, price, config.solverStake());
        if (weight == 0) return 0;
        uint48 d = _demand + weight;
        _demand = d;
        emit BookUpdated(d, _capacity);
    }

    function _uncount(uint16 weight) private {
        if (weight == 0) return;
        uint48 d = _demand - weight;
        _demand = d;
        emit BookUpdated(d, _capacity);
    }

    /// @dev min(10000, workUnits * price * 10000 / solverStake); a full slot when solverStake is 0.
    function _weight(uint64 workUnits, uint256 price, uint256 solverStake) private pure returns (uint16) {
        uint256 factor = uint256(workUnits) * BPS;
        if (solverStake == 0 || price > type(uint256).max / factor) return uint16(BPS);
        uint256 weight = price * factor / solverStake;
        return weight > BPS ? uint16(BPS) : uint16(weight);
    }

    // ---------------------------------------------------------------- controller

    /// @dev Applies the elapsed epochs and returns the price of this block.
    function _poke() private returns (uint256 price) {
        return _step(config.marketParams());
    }

    function _step(MarketParams memory m) private returns (uint256 price) {
        uint64 start;
        uint256 window;
        (price, start, window) = _stepped(m);
        if (start != epochStart) {
            // One slot: the window only changes when an epoch ends.
            epochStart = start;
            _window = uint112(window);
        }
        if (price != _storedPrice) {
            _storedPrice = uint128(price);
            emit PriceUpdated(price, _demand, _capacity);
        }
    }

    /// @dev The stored price stepped over the whole epochs since `epochStart` (at most MAX_STEPPED_EPOCHS of them)
    ///      and clamped to the current bounds, with the start of the epoch this block is in and the sample window.
    ///      Each elapsed epoch pushes the utilisation of now (it held at every epoch end since the last step) and
    ///      steps by the window's median; once more than half the window holds that sample, it is the median.
    function _stepped(MarketParams memory m) private view returns (uint256 price, uint64 start, uint256 window) {
        price = _storedPrice;
        start = epochStart;
        window = _window;
        if (price == 0) return (m.initialPrice, uint64(block.number), _filled(m.targetUtilizationBps));
        uint256 epochs = (block.number - start) / m.priceEpochBlocks;
        start += uint64(epochs * m.priceEpochBlocks);
        if (epochs > MAX_STEPPED_EPOCHS) epochs = MAX_STEPPED_EPOCHS;
        if (epochs != 0) {
            uint256 u = _utilization(m.targetUtilizationBps);
            (uint256[HALF] memory lo, uint256[HALF] memory hi) = _bounds(window);
            uint256 factor;
            for (uint256 i = 0; i < epochs; i++) {
                if (i < WINDOW) window = ((window << SAMPLE_BITS) | u) & WINDOW_MASK;
                // After i + 1 pushes of u: clamped between the kept samples' bounds, then u itself.
                if (i < HALF) factor = uint256(int256(BPS) + _delta(u < lo[i] ? lo[i] : (u > hi[i] ? hi[i] : u), m));
                else if (i == HALF) factor = uint256(int256(BPS) + _delta(u, m));
                price = _clamp(price * factor / BPS, m);
            }
        }
        price = _clamp(price, m);
    }

    /// @dev demand / capacity in basis points (demand counts basis points of a slot, capacity slots; 2 * target
    ///      when capacity is 0 and demand is not), capped at 2 * target (a full step; it fits 16 bits since
    ///      target <= 10000).
    function _utilization(uint16 targetBps) private view returns (uint256 u) {
        uint256 cap = 2 * uint256(targetBps);
        uint256 c = _capacity;
        uint256 d = _demand;
        if (c == 0) return d == 0 ? 0 : cap;
        u = d / c;
        if (u > cap) u = cap;
    }

    /// @dev A window whose every sample is `sample`.
    function _filled(uint256 sample) private pure returns (uint256 window) {
        for (uint256 i = 0; i < WINDOW; i++) {
            window = (window << SAMPLE_BITS) | sample;
        }
    }

    /// @dev Where the median lands after `k + 1` pushes of a sample u (k < HALF): `clamp(u, lo[k], hi[k])`,
    ///      the middle of the union of u (k + 1 times) and the newest WINDOW - k - 1 samples kept, `s` sorted:
    ///      lo = s[HALF - 1 - k], hi = s[HALF]. The kept sets nest (newest first), so one insertion sort serves
    ///      all: after inserting the newest WINDOW - k - 1 samples, (lo[k], hi[k]) are read off.
    function _bounds(uint256 window) private pure returns (uint256[HALF] memory lo, uint256[HALF] memory hi) {
        uint256[WINDOW] memory s;
        unchecked {
            for (uint256 i = 0; i < WINDOW - 1; i++) {
                uint256 v = (window >> (SAMPLE_BITS * i)) & 0xffff;
                uint256 j = i;
                while (j > 0 && s[j - 1] > v) {
                    s[j] = s[j - 1];
                    j--;
                }
                s[j] = v;
                // i + 1 samples kept = WINDOW - k - 1 with k = WINDOW - 2 - i.
                if (i + 1 > HALF) {
                    uint256 k = WINDOW - 2 - i;
                    lo[k] = s[HALF - 1 - k];
                    hi[k] = s[HALF];
                }
            }
        }
    }

    /// @dev The middle sample of `window`.
    function _median(uint256 window) private pure returns (uint256) {
        uint256[WINDOW] memory s;
        unchecked {
            for (uint256 i = 0; i < WINDOW; i++) {
                uint256 v = (window >> (SAMPLE_BITS * i)) & 0xffff;
                uint256 j = i;
                while (j > 0 && s[j - 1] > v) {
                    s[j] = s[j - 1];
                    j--;
                }
                s[j] = v;
            }
        }
        return s[HALF];
    }

    /// @dev priceStepBps * (u - target) / target, clamped to +-priceStepBps (u and target in basis points).
    function _delta(uint256 utilization, MarketParams memory m) private pure returns (int256 delta) {
        int256 target = int256(uint256(m.targetUtilizationBps));
        int256 step = int256(uint256(m.priceStepBps));
        delta = step * (int256(utilization) - target) / target;
        if (delta > step) delta = step;
        if (delta < -step) delta = -step;
    }

    function _clamp(uint256 price, MarketParams memory m) private pure returns (uint256) {
        if (price < m.priceFloor) return m.priceFloor;
        if (price > m.priceCeiling) return m.priceCeiling;
        return price;
    }
}
