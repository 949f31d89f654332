// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Role bits, at file level so that other contracts (TaskMarket) can import them as compile-time constants.
uint8 constant SOLVER_ROLE = 1;
uint8 constant VERIFIER_ROLE = 2;
uint8 constant WHISTLEBLOWER_ROLE = 4;

/// @title RoleRegistry
/// @notice Who plays which role in the Gensyn protocol, and the stake each account has put up.
/// @dev Every account's stake is split into three buckets:
///      - free: deposited, usable by the market (lockable) or withdrawable (after unbonding);
///      - locked: held by the market for a task in progress; only the market moves it (unlock/slash);
///      - unbonding: on its way out; withdrawable once `releaseAt` has passed.
///      `totalStaked` is the sum of all three buckets over all accounts; `totalBurned` is stake the market
///      burned (locked here for ever). Invariant: balance == totalStaked + totalBurned (the contract has no
///      receive/fallback function, so plain transfers revert; only a forced transfer, e.g. a SELFDESTRUCT
///      beneficiary payment, could make the balance larger).
///      Slashing never moves ether: it moves locked stake of one account into the free stake of another
///      (the winner or the treasury), who can then unbond and withdraw it, or into `totalBurned`.
///
///      The VERIFIER accounts whose stake (free + locked) is at least `minimumVerifierStake` are listed
///      (`verifierCount`, `verifierAt`), so that a dispute game can draw a committee on chain from staked accounts
///      only: an account is listed when its stake reaches the minimum (a registration, a deposit, a slash's winner
///      share) and delisted (swap and pop) when it falls below (an unbond request, a slash, a burn). Locking and
///      unlocking move stake between free and locked and leave the list alone. An empty registration is never
///      listed, so a committee cannot be packed with free sybil accounts (docs/security.md, finding 4). WHISTLEBLOWER accounts announce whether they are currently watching tasks
///      (`setWhistleblowing`); `activeWhistleblowers` counts those that are.
contract RoleRegistry {
    // ---------------------------------------------------------------- roles
    uint8 public constant SOLVER = SOLVER_ROLE;
    uint8 public constant VERIFIER = VERIFIER_ROLE;
    uint8 public constant WHISTLEBLOWER = WHISTLEBLOWER_ROLE;
    /// @notice Every role bit this registry knows. Any other bit is rejected.
    uint8 public constant ALL_ROLES = SOLVER | VERIFIER | WHISTLEBLOWER;

    // ---------------------------------------------------------------- errors
    error NotOwner();
    error NotMarket();
    /// @notice A stake does not fit the 128 bits it is kept in.
    error AmountTooLarge(uint256 amount, uint8 bits);
    error MarketAlreadySet();
    error ZeroAddress();
    error ZeroAmount();
    error InvalidRoles(uint8 roles);
    error InsufficientFreeStake(uint256 available, uint256 requested);
    error InsufficientLockedStake(uint256 locked, uint256 requested);
    error NothingToWithdraw();
    error UnbondingLocked(uint64 releaseAt);
    error TransferFailed(address to, uint256 amount);
    error MissingRole(address account, uint8 role);
    error IndexOutOfRange(uint256 index, uint256 count);

    // ---------------------------------------------------------------- events
    event MarketSet(address market);
    /// @param roles the account's roles after this registration (all bits it now holds)
    event Registered(address indexed account, uint8 roles);
    event Deposited(address indexed account, uint256 amount);
    /// @param amount the amount moved from free to unbonding by this request
    /// @param releaseAt when the account's whole unbonding amount becomes withdrawable
    event UnbondRequested(address indexed account, uint256 amount, uint64 releaseAt);
    event Withdrawn(address indexed account, uint256 amount);
    event Locked(address indexed account, uint256 amount);
    event Unlocked(address indexed account, uint256 amount);
    event Slashed(address indexed from, address indexed to, uint256 amount);
    /// @notice `amount` of `from`'s locked stake left circulation for ever (counted in `totalBurned`).
    event Burned(address indexed from, uint256 amount);
    /// @notice `account` was appended to the verifier list at `index` (the first time it gained VERIFIER).
    event VerifierListed(address indexed account, uint256 index);
    /// @notice `account`'s stake fell below `minimumVerifierStake`: it left the verifier list.
    event VerifierDelisted(address indexed account);
    /// @param active whether the account now watches tasks; `count` is `activeWhistleblowers` after the change
    event WhistleblowingSet(address indexed account, bool active, uint256 count);

    // ---------------------------------------------------------------- state
    /// @dev Free and locked share one slot, so that the market's lock and unlock (a claim, a verification,
    ///      a settlement) rewrite one slot instead of opening a second (docs/benchmarks.md, "Gas of the honest
    ///      lifecycle"). uint128 holds any amount of ether there is; a deposit past it reverts `AmountTooLarge`.
    struct Stake {
        uint128 free;
        uint128 locked;
        uint128 unbonding;
        uint64 releaseAt;
    }

    address public immutable owner;
    address public immutable treasury;
    uint64 public immutable unbondingDelay;
    /// @notice The stake (free + locked) a VERIFIER account needs to be listed for committee draws (at least 1 wei).
    uint256 public immutable minimumVerifierStake;

    address public market;
    uint256 public totalStaked;
    /// @notice Stake burned by the market: held by this contract for ever, owned by nobody.
    uint256 public totalBurned;
    /// @notice How many WHISTLEBLOWER accounts currently say they watch tasks.
    uint256 public activeWhistleblowers;

    mapping(address => Stake) private _stakes;
    mapping(address => uint8) private _roles;
    mapping(address => bool) private _whistleblowing;
    address[] private _verifiers;
    /// @dev account => its index in `_verifiers` plus one (0: not listed).
    mapping(address => uint256) private _listedAt;

    constructor(uint64 unbondingDelay_, address treasury_, uint256 minimumVerifierStake_) {
        if (treasury_ == address(0)) revert ZeroAddress();
        owner = msg.sender;
        treasury = treasury_;
        unbondingDelay = unbondingDelay_;
        minimumVerifierStake = minimumVerifierStake_ == 0 ? 1 : minimumVerifierStake_;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    modifier onlyMarket() {
        if (msg.sender != market) revert NotMarket();
        _;
    }

    // ---------------------------------------------------------------- admin

    /// @notice Names the one contract allowed to lock, unlock and slash stake. Can be set once.
    function setMarket(address market_) external onlyOwner {
        if (market != address(0)) revert MarketAlreadySet();
        if (market_ == address(0)) revert ZeroAddress();
        market = market_;
        emit MarketSet(market_);
    }

    // ---------------------------------------------------------------- accounts

    /// @notice Adds `roles` (bit flags) to the caller's roles; any ether sent becomes free stake.
    function register(uint8 roles) external payable {
        if (roles == 0 || roles & ~ALL_ROLES != 0) revert InvalidRoles(roles);
        uint8 previous = _roles[msg.sender];
        uint8 updated = previous | roles;
        _roles[msg.sender] = updated;
        emit Registered(msg.sender, updated);
        if (msg.value > 0) _deposit(msg.sender, msg.value);
        else if (previous & VERIFIER == 0 && updated & VERIFIER != 0) _relist(msg.sender);
    }

    /// @notice Adds the ether sent to the caller's free stake.
    function deposit() external payable {
        if (msg.value == 0) revert ZeroAmount();
        _deposit(msg.sender, msg.value);
    }

    /// @notice Adds the ether sent to `account`'s free stake (anyone may pay; the market pays jackpot shares
    ///         this way, so that a recipient that rejects ether cannot block a payout).
    function depositFor(address account) external payable {
        if (account == address(0)) revert ZeroAddress();
        if (msg.value == 0) revert ZeroAmount();
        _deposit(account, msg.value);
    }

    /// @notice A WHISTLEBLOWER account says whether it is watching tasks (joins or leaves the active set).
    ///         Setting the value it already has changes nothing and emits nothing.
    function setWhistleblowing(bool active) external {
        if (_roles[msg.sender] & WHISTLEBLOWER == 0) revert MissingRole(msg.sender, WHISTLEBLOWER);
        if (_whistleblowing[msg.sender] == active) return;
        _whistleblowing[msg.sender] = active;
        uint256 count = active ? activeWhistleblowers + 1 : activeWhistleblowers - 1;
        activeWhistleblowers = count;
        emit WhistleblowingSet(msg.sender, active, count);
    }

    /// @notice Moves `amount` of free stake into unbonding. Every request restarts the unbonding clock for
    ///         the caller's whole unbonding amount.
    function requestUnbond(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        Stake storage s = _stakes[msg.sender];
        if (s.free < amount) revert InsufficientFreeStake(s.free, amount);
        // Saturates instead of overflowing: a delay near 2^64 s simply means "never".
        uint256 release = block.timestamp + unbondingDelay;
        uint64 releaseAt = release > type(uint64).max ? type(uint64).max : uint64(release);
        // No truncation: amount <= free, a uint128 (checked above); likewise in lock, unlock, slash and burn.
        s.free -= uint128(amount);
        s.unbonding += uint128(amount);
        s.releaseAt = releaseAt;
        emit UnbondRequested(msg.sender, amount, releaseAt);
        _relist(msg.sender);
    }

    /// @notice Pays out the caller's whole unbonding amount once its release time has come.
    function withdraw() external {
        Stake storage s = _stakes[msg.sender];
        uint256 amount = s.unbonding;
        if (amount == 0) revert NothingToWithdraw();
        if (s.releaseAt > block.timestamp) revert UnbondingLocked(s.releaseAt);
        s.unbonding = 0;
        s.releaseAt = 0;
        totalStaked -= amount;
        emit Withdrawn(msg.sender, amount);
        _pay(msg.sender, amount);
    }

    // ---------------------------------------------------------------- market only

    /// @notice Moves `amount` of `account`'s free stake into locked stake.
    function lock(address account, uint256 amount) external onlyMarket {
        Stake storage s = _stakes[account];
        if (s.free < amount) revert InsufficientFreeStake(s.free, amount);
        s.free -= uint128(amount);
        s.locked += uint128(amount);
        emit Locked(account, amount);
    }

    /// @notice Moves `amount` of `account`'s locked stake back into its free stake.
    function unlock(address account, uint256 amount) external onlyMarket {
        Stake storage s = _stakes[account];
        if (s.locked < amount) revert InsufficientLockedStake(s.locked, amount);
        s.locked -= uint128(amount);
        s.free += uint128(amount);
        emit Unlocked(account, amount);
    }

    /// @notice Moves `amount` of `from`'s locked stake into `to`'s free stake. No ether moves.
    function slash(address from, uint256 amount, address to) external onlyMarket {
        if (to == address(0)) revert ZeroAddress();
        Stake storage s = _stakes[from];
        if (s.locked < amount) revert InsufficientLockedStake(s.locked, amount);
        s.locked -= uint128(amount);
        _stakes[to].free += uint128(amount);
        emit Slashed(from, to, amount);
        _relist(from);
        _relist(to);
    }

    /// @notice Burns `amount` of `from`'s locked stake: it leaves `totalStaked` for `totalBurned`, and the ether
    ///         stays in this contract for ever. No ether moves.
    function burn(address from, uint256 amount) external onlyMarket {
        Stake storage s = _stakes[from];
        if (s.locked < amount) revert InsufficientLockedStake(s.locked, amount);
        s.locked -= uint128(amount);
        totalStaked -= amount;
        totalBurned += amount;
        emit Burned(from, amount);
        _relist(from);
    }

    // ---------------------------------------------------------------- views

    function isWhistleblowing(address account) external view returns (bool) {
        return _whistleblowing[account];
    }

    /// @notice Number of listed verifiers (VERIFIER, stake >= minimumVerifierStake).
    function verifierCount() external view returns (uint256) {
        return _verifiers.length;
    }

    /// @notice The `index`-th listed verifier (0-based; delisting moves the last one into the gap).
    function verifierAt(uint256 index) external view returns (address) {
        if (index >= _verifiers.length) revert IndexOutOfRange(index, _verifiers.length);
        return _verifiers[index];
    }

    function stakeOf(address account)
        external
        view
        returns (uint256 free, uint256 locked, uint256 unbonding, uint64 releaseAt)
    {
        Stake storage s = _stakes[account];
        return (s.free, s.locked, s.unbonding, s.releaseAt);
    }

    function rolesOf(address account) external view returns (uint8) {
        return _roles[account];
    }

    /// @notice True when `account` holds every bit of `roles`. False for `roles == 0` (asks for nothing,
    ///         so it must not pass as a guard).
    function hasRoles(address account, uint8 roles) external view returns (bool) {
        return roles != 0 && _roles[account] & roles == roles;
    }

    // ---------------------------------------------------------------- internals

    function _deposit(address account, uint256 amount) private {
        if (amount > type(uint128).max) revert AmountTooLarge(amount, 128);
        _stakes[account].free += uint128(amount);
        totalStaked += amount;
        emit Deposited(account, amount);
        _relist(account);
    }

    /// @dev Lists `account` when it is a VERIFIER whose free + locked stake reaches the minimum, delists it when not.
    function _relist(address account) private {
        Stake storage s = _stakes[account];
        bool eligible = _roles[account] & VERIFIER != 0 && s.free + s.locked >= minimumVerifierStake;
        uint256 at = _listedAt[account];
        if (eligible && at == 0) {
            _verifiers.push(account);
            _listedAt[account] = _verifiers.length;
            emit VerifierListed(account, _verifiers.length - 1);
        } else if (!eligible && at != 0) {
            address last = _verifiers[_verifiers.length - 1];
            _verifiers[at - 1] = last;
            _listedAt[last] = at;
            _verifiers.pop();
            _listedAt[account] = 0;
            emit VerifierDelisted(account);
        }
    }

    /// @dev Push payment after all effects. A recipient that rejects ether makes the whole call revert.
    function _pay(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(to, amount);
    }
}
