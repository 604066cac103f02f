#pragma once
// Constants only: included by the kernels' translation units, which are
// compiled for different CPUs and must share no inline code.

namespace tessera {

// Rows of record offsets (NeighborList::entry_shift) hold atom << this:
// byte offsets of 16-byte records.
constexpr int kRecordShift = 4;
// The most atoms (locals and ghosts) a rank's rows of record offsets can
// hold: every offset must fit an int (2^27).
constexpr long kRecordOffsetAtoms = (2147483647L >> kRecordShift) + 1;

}  // namespace tessera
