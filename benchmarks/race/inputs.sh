# The chain and EAM cases of the race (run.sh), written by one template
# each so that Tessera's deck and LAMMPS's input cannot drift apart. Sourced
# by run.sh and by scripts/gpu/run-on-device.sh (the GPU check runs the same
# decks on a GPU). Needs $repo (the checkout) and die().

# The chain case: bench/in.chain's physics (FENE K 30, R0 1.5; WCA pairs cut
# at 2^(1/6) and shifted; special_bonds fene; skin 0.4; its list policy
# every 1 delay 1 with the distance check; dt 0.012) under plain NVE, from
# LAMMPS's own melt, so both engines start from the same atoms and
# velocities (in.chain adds a Langevin thermostat, whose noise the engines
# draw differently).
write_chain_inputs() {  # dir steps
  local dir=$1 s=$2 wca=1.122462048309373
  mkdir -p "$dir"
  gzip -dc "$repo/tests/reference/chain_melt.data.gz" > "$dir/chain.data"
  cat > "$dir/tessera.yaml" <<EOF
units: lj
system: {read_data: chain.data}
potential:
  style: lj/cut
  cutoff: $wca
  shift: true
  coeffs:
    - {types: [1, 1], epsilon: 1.0, sigma: 1.0}
bonds: {style: fene, coeffs: [{type: 1, K: 30.0, R0: 1.5, epsilon: 1.0, sigma: 1.0}]}
special_bonds: fene
neighbor: {skin: 0.4, every: 1, delay: 1, check: true}
integrator: {style: nve, dt: 0.012}
run: {steps: $s}
output:
  thermo: {every: 0, file: tessera.thermo.csv}
EOF
  cat > "$dir/lammps.in" <<EOF
units           lj
atom_style      bond
special_bonds   fene
pair_style      lj/cut $wca
pair_modify     shift yes
bond_style      fene
read_data       chain.data
pair_coeff      1 1 1.0 1.0 $wca
bond_coeff      1 30.0 1.5 1.0 1.0
neighbor        0.4 bin
neigh_modify    every 1 delay 1
fix             1 all nve
timestep        0.012
thermo_style    custom step temp pe ke etotal press
thermo_modify   norm yes format float %.17g
thermo          $s
run             $s
EOF
  echo "style=chain atoms=32000 chains=320x100 bond=fene,K=30,R0=1.5 cutoff=$wca shift=yes special_bonds=fene skin=0.4 list=every1,delay1,check dt=0.012" > "$dir/physics"
}

# LAMMPS's bench/in.eam: 32,000 Cu atoms (fcc, a = 3.615 A, 20^3 cells),
# Cu_u3.eam (funcfl) from lammps-data, 1600 K, skin 1 A, list checked every
# step after a delay of 5, dt 5 fs; LAMMPS's suffix run is eam/opt. Thermo
# as Tessera's in metal units: totals, not per atom (norm no).
write_eam_inputs() {  # dir steps
  local dir=$1 s=$2 pot=/usr/share/lammps/potentials/Cu_u3.eam
  [ -r "$pot" ] || die "$pot not found (Debian: lammps-data)"
  mkdir -p "$dir"
  cat > "$dir/tessera.yaml" <<EOF
units: metal
system:
  lattice: {style: fcc, constant: 3.615, cells: [20, 20, 20]}
velocity: {temperature: 1600, seed: 376847}
potential: {style: eam, file: $pot}
neighbor: {skin: 1.0, every: 1, delay: 5, check: true}
integrator: {style: nve, dt: 0.005}
run: {steps: $s}
output:
  thermo: {every: 0, file: tessera.thermo.csv}
EOF
  cat > "$dir/lammps.in" <<EOF
units           metal
atom_style      atomic
lattice         fcc 3.615
region          box block 0 20 0 20 0 20
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      1 1 $pot
velocity        all create 1600.0 376847 loop geom
neighbor        1.0 bin
neigh_modify    every 1 delay 5 check yes
fix             1 all nve
timestep        0.005
thermo_style    custom step temp pe ke etotal press
thermo_modify   norm no format float %.17g
thermo          $s
run             $s
EOF
  echo "style=eam atoms=32000 lattice=fcc,3.615A potential=Cu_u3.eam(funcfl) temp=1600K skin=1.0A list=every1,delay5,check dt=0.005ps" > "$dir/physics"
}
