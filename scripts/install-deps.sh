#!/usr/bin/env bash
# Installs everything Tessera needs to build and test on a fresh Debian 12 machine.
# The CUDA toolkit is not a Debian package: it is expected at /usr/local/cuda (optional).
set -euo pipefail

pkgs=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev catch2 libcli11-dev libfmt-dev
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libxxhash-dev
  clang libclang-rt-14-dev libomp-14-dev
  slurm-wlm munge
  lammps lammps-data python3-numpy python3-matplotlib python3-h5py python3-mdanalysis python3-ase
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
