// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IPinpointGame
/// @notice What the TaskMarket needs from the dispute game (docs/disputes.md, "PinpointGame"): it opens a game
///         and later reads its outcome (pull, no callback), so the game never calls back into the market.
interface IPinpointGame {
    enum Outcome {
        None,
        ProverWon,
        ChallengerWon,
        BothWrong,
        Void
    }

    /// @notice Opens a dispute over the segment [startStep, endStep] of a task's proof. Only the opener (the
    ///         market) may call it. The prover stands behind `proverEndHash` (the committed checkpoint), the
    ///         challenger claims `challengerEndHash`. `excluded` (besides both parties) is never drawn for the
    ///         committee (the market passes the task's verifier or solver, whichever is not a party).
    /// @return disputeId the new dispute's id (ids start at 1)
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
    ) external returns (uint256 disputeId);

    /// @notice `None` while the dispute is being played; final once anything else.
    function outcomeOf(uint256 disputeId) external view returns (Outcome);
}
