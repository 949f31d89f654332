// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Every tunable of the dispute and incentive layer (docs/disputes.md, "ProtocolConfig"). Declared at
///         file level so that the market and the game import it as `Params`. Amounts are wei; windows and
///         timeouts are block counts; `*Bps` are basis points (10000 = 100%).
struct Params {
    /// solver's stake locked per task
    uint256 solverStake;
    /// verifier's stake locked per task; also the free stake a committee member needs
    uint256 verifierStake;
    /// a whistleblower's deposit per challenge
    uint256 challengeDeposit;
    /// challenges / rejection disputes allowed while block.number <= verdictBlock + window
    uint64 challengeWindowBlocks;
    /// after the challenge window: the solver may reveal a forced error
    uint64 revealWindowBlocks;
    /// blocks each dispute round (and the arbitration step) may take
    uint64 roundTimeoutBlocks;
    /// blocks a committee has to vote
    uint64 committeeTimeoutBlocks;
    /// tax on every fee paid, into the jackpot
    uint16 taxBps;
    /// share of a slashed amount to the winner of the dispute
    uint16 slashWinnerBps;
    /// share of a slashed amount to the treasury
    uint16 slashTreasuryBps;
    /// share of a slashed amount burned
    uint16 slashBurnBps;
    /// probability (basis points) that a task is a forced error
    uint16 forcedErrorBps;
    /// most one forced error pays out in total
    uint256 jackpotCap;
    /// whistleblowers per task (queued); also the most catchers paid
    uint8 maxChallengers;
    /// members drawn when the contract cannot decide itself
    uint8 committeeSize;
    /// largest tensor (elements) the contract re-executes itself
    uint32 maxOnchainElements;
}

/// @title ProtocolConfig
/// @notice The one on-chain configuration of stakes, windows, shares and limits, replaceable by its owner.
/// @dev Readers (TaskMarket, PinpointGame) read `params()` when they need a value; the market snapshots the
///      stake amounts into each task when it locks them, so a change here never unlocks or slashes a different
///      amount than was locked. Windows and timeouts read at the moment a window opens apply to it.
contract ProtocolConfig {
    uint16 public constant BPS = 10000;
    uint64 public constant MAX_BLOCKS = 100000;
    uint32 public constant MAX_ONCHAIN_ELEMENTS_LIMIT = 65536;

    error NotOwner(address caller);
    error ZeroAddress();
    /// @param name the field that failed its check ("slashShares" when the three slash shares do not sum to 10000)
    error InvalidParameter(string name);

    event ParamsUpdated(Params params);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    address public owner;
    Params private _params;

    constructor() {
        owner = msg.sender;
        Params memory p = defaultParams();
        _params = p;
        emit OwnershipTransferred(address(0), msg.sender);
        emit ParamsUpdated(p);
    }

    /// @notice The defaults of docs/disputes.md (what the constructor sets).
    function defaultParams() public pure returns (Params memory) {
        return Params({
            solverStake: 1 ether,
            verifierStake: 0.5 ether,
            challengeDeposit: 0.2 ether,
            challengeWindowBlocks: 5,
            revealWindowBlocks: 3,
            roundTimeoutBlocks: 10,
            committeeTimeoutBlocks: 20,
            taxBps: 500,
            slashWinnerBps: 5000,
            slashTreasuryBps: 3000,
            slashBurnBps: 2000,
            forcedErrorBps: 500,
            jackpotCap: 1 ether,
            maxChallengers: 3,
            committeeSize: 3,
            maxOnchainElements: 4096
        });
    }

    function params() external view returns (Params memory) {
        return _params;
    }

    /// @notice Replaces every parameter at once after checking each field (InvalidParameter names the first
    ///         field that fails).
    function setParams(Params calldata p) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        check(p);
        _params = p;
        emit ParamsUpdated(p);
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
        _checkBlocks(p.revealWindowBlocks, "revealWindowBlocks");
        _checkBlocks(p.roundTimeoutBlocks, "roundTimeoutBlocks");
        _checkBlocks(p.committeeTimeoutBlocks, "committeeTimeoutBlocks");
        if (p.maxChallengers == 0) revert InvalidParameter("maxChallengers");
        if (p.committeeSize == 0) revert InvalidParameter("committeeSize");
        if (p.maxOnchainElements == 0 || p.maxOnchainElements > MAX_ONCHAIN_ELEMENTS_LIMIT) {
            revert InvalidParameter("maxOnchainElements");
        }
    }

    function _checkBlocks(uint64 blocks, string memory name) private pure {
        if (blocks == 0 || blocks > MAX_BLOCKS) revert InvalidParameter(name);
    }
}
