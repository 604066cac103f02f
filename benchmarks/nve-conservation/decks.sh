# Sourced by run.sh and seeds.sh: edits to the copied decks that both make.

# to_smooth TESSERA_DECK LAMMPS_INPUT CALLER: the force-shifted lj/smooth/linear
# in both engines, same system and coefficients; the shift lines go, since the
# force-shifted form is zero at the cutoff already. Exits 2 when a deck did
# not take the edit.
to_smooth() {
  sed -i -E -e "s#^  style: lj/cut\$#  style: lj/smooth/linear#" -e "/^  shift: true/d" "$1"
  sed -i -E -e "s#^pair_style( +)lj/cut #pair_style\1lj/smooth/linear #" -e "/^pair_modify +shift yes/d" "$2"
  grep -q "style: lj/smooth/linear" "$1" || { echo "$3: could not set the Tessera potential" >&2; exit 2; }
  grep -Eq "^pair_style +lj/smooth/linear 2.5" "$2" || { echo "$3: could not set the LAMMPS potential" >&2; exit 2; }
}
