// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RoleRegistry, VERIFIER_ROLE} from "./RoleRegistry.sol";

/// @title ThresholdRegistry
/// @notice Advisory records of the distance thresholds that profiling derived, per model class, runtime class
///         and poster. A record binds no task by itself: a task is judged by a threshold only when its job spec
///         pins the profile behind it (`verification.profiles`, profile hashes the submitter committed to with
///         the spec hash), and a verifier reads the pinned profile from the blob store, not a record here
///         (docs/verification.md, "Thresholds are pinned by the job"). Submitters discover postings through
///         `ThresholdPosted` and pin the posters they trust (`gensyn submit --thresholds-from`).
/// @dev Any account holding the VERIFIER role in the RoleRegistry may post; a post writes only its own entry,
///      so nobody can overwrite another poster's threshold (a later post by the same poster replaces its own).
///      Only the role is checked, not the stake: registration is free, which is safe because a record never
///      binds by itself. Whistleblower challenges of a posted threshold (re-running the profile named by
///      `profileHash` and slashing a poster whose threshold it does not support) come in a later issue.
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
        uint64 postedAt;
    }

    RoleRegistry public immutable registry;

    /// modelClass => runtimeClass => poster => its latest post.
    mapping(bytes32 => mapping(bytes32 => mapping(address => Threshold))) private _thresholds;

    constructor(address registry_) {
        if (registry_ == address(0)) revert ZeroAddress();
        registry = RoleRegistry(registry_);
    }

    /// @notice Posts (or replaces) the caller's own distance threshold for `modelClass` on `runtimeClass`.
    /// @param modelClass non-zero identifier of the model class (e.g. a hash of the architecture)
    /// @param runtimeClass non-zero identifier of the runtime class (e.g. a hash of backend + kernels)
    /// @param threshold the largest acceptable normalized distance, scaled by 1e18; must be > 0
    /// @param profileHash hash of the profiling report the threshold was derived from (what a job spec pins)
    function postThreshold(bytes32 modelClass, bytes32 runtimeClass, uint256 threshold, bytes32 profileHash) external {
        if (modelClass == bytes32(0) || runtimeClass == bytes32(0)) revert ZeroClass();
        if (threshold == 0) revert ZeroThreshold();
        if (!registry.hasRoles(msg.sender, VERIFIER_ROLE)) revert NotRegistered(msg.sender, VERIFIER_ROLE);

        _thresholds[modelClass][runtimeClass][msg.sender] =
            Threshold({threshold: threshold, profileHash: profileHash, postedAt: uint64(block.timestamp)});
        emit ThresholdPosted(modelClass, runtimeClass, threshold, profileHash, msg.sender);
    }

    /// @notice `poster`'s latest threshold for the pair; all zeros when it posted none.
    function thresholdOf(bytes32 modelClass, bytes32 runtimeClass, address poster)
        external
        view
        returns (uint256 threshold, bytes32 profileHash, uint64 postedAt)
    {
        Threshold storage t = _thresholds[modelClass][runtimeClass][poster];
        return (t.threshold, t.profileHash, t.postedAt);
    }
}
