// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, VERIFIER_ROLE} from "./RoleRegistry.sol";

/// @title ThresholdRegistry
/// @notice The distance thresholds that profiling derived, per model class and runtime class. A verifier
///         compares the largest normalized distance it measures between its replays and the committed
///         checkpoints against the threshold posted for the task's (model class, runtime class).
/// @dev Any account holding the VERIFIER role in the RoleRegistry may post; a later post for the same pair
///      replaces the earlier one (last writer wins). Only the role is checked, not the stake.
///      Thresholds are unchallenged for now: whistleblower challenges of a posted threshold (re-running the
///      profile named by `profileHash` and slashing a poster whose threshold it does not support) come in a
///      later issue, and will need the poster's stake to be lockable here.
///      This contract holds no ether: it has no payable function and no receive/fallback function.
contract ThresholdRegistry {
    /// @notice Distances and thresholds are fixed-point numbers scaled by this (1e18 = distance 1.0).
    uint256 public constant SCALE = 1e18;

    // ---------------------------------------------------------------- errors
    error ZeroAddress();
    error ZeroThreshold();
    error ZeroClass();
    error NotRegistered(address account, uint8 role);

    // ---------------------------------------------------------------- events
    event ThresholdPosted(
        bytes32 indexed modelClass,
        bytes32 indexed runtimeClass,
        uint256 threshold,
        bytes32 profileHash,
        address indexed poster
    );

    // ---------------------------------------------------------------- state
    struct Threshold {
        uint256 threshold;
        bytes32 profileHash;
        address poster;
        uint64 postedAt;
    }

    RoleRegistry public immutable registry;

    mapping(bytes32 => mapping(bytes32 => Threshold)) private _thresholds;

    constructor(address registry_) {
        if (registry_ == address(0)) revert ZeroAddress();
        registry = RoleRegistry(registry_);
    }

    /// @notice Posts (or replaces) the distance threshold for `modelClass` on `runtimeClass`.
    /// @param modelClass non-zero identifier of the model class (e.g. a hash of the architecture)
    /// @param runtimeClass non-zero identifier of the runtime class (e.g. a hash of backend + kernels)
    /// @param threshold the largest acceptable normalized distance, scaled by 1e18; must be > 0
    /// @param profileHash hash of the profiling report the threshold was derived from
    function postThreshold(bytes32 modelClass, bytes32 runtimeClass, uint256 threshold, bytes32 profileHash) external {
        if (modelClass == bytes32(0) || runtimeClass == bytes32(0)) revert ZeroClass();
        if (threshold == 0) revert ZeroThreshold();
        if (!registry.hasRoles(msg.sender, VERIFIER_ROLE)) revert NotRegistered(msg.sender, VERIFIER_ROLE);

        _thresholds[modelClass][runtimeClass] =
            Threshold({threshold: threshold, profileHash: profileHash, poster: msg.sender, postedAt: uint64(block.timestamp)});
        emit ThresholdPosted(modelClass, runtimeClass, threshold, profileHash, msg.sender);
    }

    /// @notice The threshold posted for the pair; all zeros when none was posted.
    function thresholdOf(bytes32 modelClass, bytes32 runtimeClass)
        external
        view
        returns (uint256 threshold, bytes32 profileHash, address poster, uint64 postedAt)
    {
        Threshold storage t = _thresholds[modelClass][runtimeClass];
        return (t.threshold, t.profileHash, t.poster, t.postedAt);
    }
}
