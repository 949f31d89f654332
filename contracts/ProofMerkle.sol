// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ProofMerkle
/// @notice Verifies inclusion proofs of the sha256 Merkle tree over checkpoint hashes built by
///         src/pol/merkle.ts (`merkleRoot`, `merkleProof`, `verifyMerkleProof`), bit for bit:
///         leaf = sha256(0x00 || h), node = sha256(0x01 || left || right), levels pair neighbours left to right
///         and a last unpaired node is promoted unchanged (no sibling is consumed for it).
library ProofMerkle {
    function leaf(bytes32 hash) internal pure returns (bytes32) {
        return sha256(abi.encodePacked(bytes1(0x00), hash));
    }

    function node(bytes32 left, bytes32 right) internal pure returns (bytes32) {
        return sha256(abi.encodePacked(bytes1(0x01), left, right));
    }

    /// @notice True when `hash` is leaf number `index` of a tree of `leafCount` leaves with root `root`, given
    ///         the siblings from the leaf up (levels where the node is unpaired are skipped). Every sibling must
    ///         be used: a proof with extra entries is rejected, as off-chain.
    function verify(bytes32 root, bytes32 hash, uint256 index, uint256 leafCount, bytes32[] memory proof)
        internal
        pure
        returns (bool)
    {
        if (index >= leafCount) return false;
        bytes32 current = leaf(hash);
        uint256 i = index;
        uint256 width = leafCount;
        uint256 used = 0;
        while (width > 1) {
            if (i % 2 == 1) {
                if (used >= proof.length) return false;
                current = node(proof[used++], current);
            } else if (i + 1 < width) {
                if (used >= proof.length) return false;
                current = node(current, proof[used++]);
            }
            i /= 2;
            width = (width + 1) / 2;
        }
        return used == proof.length && current == root;
    }
}
