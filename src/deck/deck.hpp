#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "potentials/pair_coeffs.hpp"
#include "system/polymer_melt.hpp"

namespace tessera {

// Where a key sits in the deck, for error messages: "deck.yaml:12:5: potential.cutoff".
struct DeckLocation {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
  std::string key;
  std::string str() const;
};

struct LatticeSpec {
  std::string style;    // sc | bcc | fcc
  double constant = 0;  // lattice constant (length); derived from density when given
  std::array<int, 3> cells{0, 0, 0};
  std::vector<int> basis_types;  // type of each basis atom; empty: all type 1
  DeckLocation basis_types_at;
};

struct SystemSpec {
  std::optional<LatticeSpec> lattice;
  std::optional<PolymerMeltSpec> polymer_melt;  // a Kremer-Grest melt the builder makes (system/polymer_melt.hpp)
  DeckLocation polymer_melt_at;
  std::string read_data;  // resolved path (relative to the deck's folder)
  DeckLocation read_data_at;
  int ntypes = 0;              // 0: from the data file
  std::vector<double> masses;  // index 0 unused; empty: from the data file
  DeckLocation masses_at;
};

struct VelocitySpec {
  double temperature = 0;
  std::uint64_t seed = 0;
};

struct CoeffEntry {
  int ti = 0, tj = 0;
  PairCoeffs coeffs;
  DeckLocation at;
};

struct PotentialSpec {
  std::string style;
  double cutoff = 0;
  bool shift = false;
  Mixing mixing = Mixing::kLorentzBerthelot;
  std::vector<CoeffEntry> coeffs;
  DeckLocation cutoff_at;
  DeckLocation coeffs_at;
  // A many-body style (manybody/manybody_styles.hpp): its potential file(s),
  // resolved against the deck's folder, and the element of each atom type.
  // `cutoff` is then the files'.
  std::vector<std::string> files;
  std::vector<std::string> elements;
  DeckLocation files_at, elements_at;
};

// A bond or angle style with coefficients per type (deck `bonds:` /
// `angles:`); types without an entry take the data file's Bond Coeffs /
// Angle Coeffs.
struct BondedSpec {
  struct Entry {
    int type = 0;
    std::array<double, 4> coeffs{0, 0, 0, 0};  // BondedCoeffs order
    DeckLocation at;
  };
  std::string style;
  std::vector<Entry> coeffs;
  DeckLocation at;  // the section
};

// LAMMPS special_bonds: the pair factors of 1-2, 1-3 and 1-4 neighbours.
struct SpecialBondsSpec {
  double lj[3] = {0, 0, 0};  // LAMMPS's default
  DeckLocation at;
};

struct NeighborSpec {
  double skin = 0;  // the deck loader puts the units' default here
  int every = 1;
  int delay = 0;
  bool check = true;
  bool sort = true;
  // Sort at the first list build after each multiple of sort_every steps
  // (and at the run's first build).
  int sort_every = 1000;
  // "rows" (per-atom Verlet rows) or "clusters" (each backend's cluster
  // list: neighbor/cluster_pairs.hpp on the CPU, kernels/device/
  // cluster_list.hpp on a device).
  std::string layout = "rows";
  // "full" or "half" (NeighborList::half; CPU only, the device's lists are
  // full).
  std::string list = "full";
  DeckLocation list_at;
  DeckLocation skin_at;
  // How far from a sub-box atoms are copied as ghosts, when more than the
  // pair cutoff + skin is needed (an angle's far atom); 0: cutoff + skin.
  double ghost_cutoff = 0;
  DeckLocation ghost_cutoff_at;
};

enum class IntegratorStyle { kNve, kLangevin, kNoseHoover, kNpt, kNph };

// How the barostat couples the box's axes: one strain rate for all three
// (iso, the hydrostatic pressure drives it) or one per axis (aniso, each
// driven by its diagonal pressure component).
enum class PressureCoupling { kIso, kAniso };

struct IntegratorSpec {
  IntegratorStyle style = IntegratorStyle::kNve;
  double dt = 0;  // the deck loader puts the units' default here
  // Target temperature; npt ramps it linearly from `temperature` to
  // `temperature_stop` over the deck's run (equal when the deck gives one).
  double temperature = 0;
  double temperature_stop = 0;
  double damping = 0;
  std::uint64_t seed = 0;
  int chain = 3;
  // npt and nph: target pressure, ramped like the temperature, the
  // barostat's damping time and the length of its own thermostat chain (0:
  // none), MTK's correction terms, and LAMMPS's drag factor.
  double pressure = 0;
  double pressure_stop = 0;
  double pressure_damping = 0;
  int pressure_chain = 3;
  PressureCoupling coupling = PressureCoupling::kIso;
  bool mtk = true;
  double drag = 0;
  // A step that changes the volume by more than this fraction stops the run
  // (exit 3): a barostat that moves the box this fast is unstable, and the
  // steps after it would be meaningless.
  double max_volume_change = 0.05;
  // langevin and nose-hoover with a `barostat: {style: c-rescale}` block:
  // the stochastic cell rescaling barostat (Bernetti & Bussi 2020), which
  // reads pressure, pressure_stop, pressure_damping (its tau_p) and coupling
  // above, plus the isothermal compressibility beta_T and the key of its
  // noise (the Langevin seed unless the block gives one).
  bool c_rescale = false;
  double compressibility = 0;
  std::uint64_t barostat_seed = 0;
  // The steps the ramps run over: the deck's run.steps (filled by the loader).
  long ramp_steps = 0;
  // npt and nph: the Martyna-Tobias-Klein barostat (nose_hoover_mtk.hpp).
  bool barostat() const { return style == IntegratorStyle::kNpt || style == IntegratorStyle::kNph; }
  // Any barostat: the box changes during the run.
  bool moves_box() const { return barostat() || c_rescale; }
  bool chain_thermostat() const { return style == IntegratorStyle::kNoseHoover || style == IntegratorStyle::kNpt; }
};

struct ThermoSpec {
  long every = 0;    // 0: only the first and last step
  std::string file;  // CSV, empty: none
  bool screen = true;
  // The table's columns (thermo/thermo.hpp's names), in order; the loader
  // fills the default when the deck gives none.
  std::vector<std::string> columns;
};

// Checkpoints every `every` steps and/or every `every_seconds` of wall time
// (0: off), as DIR/ckpt-<step>.h5, keeping the newest `keep`.
struct CheckpointSpec {
  long every = 0;
  double every_seconds = 0;
  std::string path;  // folder; empty: no checkpoints
  int keep = 2;
  bool enabled() const { return !path.empty(); }
};

// H5MD trajectory: which per-atom fields to store every `every` steps.
struct TrajectorySpec {
  long every = 0;
  std::string file;  // empty: no trajectory
  bool position = true, velocity = false, image = false, force = false;
  bool enabled() const { return !file.empty(); }
};

// A text trajectory for viewers (output.dump: LAMMPS dump custom; output.xyz:
// extended XYZ) every `every` steps. Columns in a fixed order whatever the
// order of `fields`, so a restarted run can check it continues the same file.
struct ExportSpec {
  long every = 0;
  std::string file;  // empty: none
  bool position = true, unwrapped = false, image = false, velocity = false, force = false;
  std::vector<std::string> species;  // xyz: a name per type (type 1 first); empty: the type numbers
  DeckLocation species_at;
  bool enabled() const { return !file.empty(); }
};

// A LAMMPS data file of the current state (output.data): the atoms with
// their molecule ids and image flags, velocities, bonds, angles and their
// coefficients, as LAMMPS's write_data. Written after the last step and,
// with `every`, every `every` steps; a '*' in the name becomes the step.
struct DataSpec {
  long every = 0;    // 0: after the last step only
  std::string file;  // empty: none
  bool enabled() const { return !file.empty(); }
};

// Live metrics: one JSON object per line every `every` steps and/or
// `every_seconds`, for dashboards and `tail -f`.
struct MetricsSpec {
  long every = 0;
  double every_seconds = 0;
  std::string file;  // empty: none
  bool enabled() const { return !file.empty(); }
};

// Moving the rank grid's cut planes to even out the work (several ranks).
struct LoadBalanceSpec {
  long every = 0;           // steps between attempts (at the next list rebuild); 0: off
  double threshold = 1.05;  // act only when max/mean cost exceeds this
  bool by_time = true;      // cost = measured pair + neighbour time; false: atom count
  bool enabled() const { return every > 0; }
};

// In-engine analysis, written to observables/ of the H5MD trajectory
// (docs/deck.md, `analysis`). g(r): one histogram of the current
// configuration per sample, all atoms first, then each requested pair of
// (centre type, neighbour type).
struct RdfSpec {
  long every = 0;
  int bins = 100;
  double r_max = 0;  // 0: the largest pair cutoff
  std::vector<std::array<int, 2>> pairs;
  DeckLocation r_max_at, pairs_at;
};

// Mean-squared displacement from the unwrapped positions at the origin
// step: 0, or the restart from a checkpoint of a run without an MSD.
struct MsdSpec {
  long every = 0;
};

struct AnalysisSpec {
  std::optional<RdfSpec> rdf;
  std::optional<MsdSpec> msd;
  bool enabled() const { return rdf.has_value() || msd.has_value(); }
};

struct Deck {
  std::string path;
  std::string text;  // the deck as read, kept for checkpoints and logs
  std::string units = "lj";
  std::string backend = "auto";
  // "double", or "mixed": float pair math on the device (pair_force.hpp).
  std::string precision = "double";
  int threads = 0;  // 0: OpenMP default
  // Device pointers straight to MPI for the halo: auto (when the library
  // says it takes them), on, off (comm/halo_transport.hpp).
  std::string cuda_aware_mpi = "auto";
  // Swaps whose partners share this rank's node copy the halo between the
  // ranks' device buffers themselves (CUDA IPC): auto, off. Off by default
  // until it has passed its checks on a GPU (comm/halo_transport.hpp).
  std::string peer_copies = "off";
  SystemSpec system;
  std::optional<VelocitySpec> velocity;
  PotentialSpec potential;
  std::optional<BondedSpec> bonds, angles;
  SpecialBondsSpec special_bonds;
  NeighborSpec neighbor;
  IntegratorSpec integrator;
  long steps = 0;
  double max_walltime = 0;  // seconds; 0: no budget
  double stop_margin = 60;  // seconds kept for the final checkpoint
  ThermoSpec thermo;
  CheckpointSpec checkpoint;
  TrajectorySpec trajectory;
  MetricsSpec metrics;
  ExportSpec dump;
  ExportSpec xyz;
  DataSpec data;
  std::string restart;                        // "" (fresh), "auto", or a checkpoint file
  std::array<int, 3> decomposition{0, 0, 0};  // ranks per axis; 0: chosen
  DeckLocation decomposition_at;
  // The GPUs of a node, taken by local rank in turn (empty: every usable GPU).
  std::vector<int> gpu_ids;
  DeckLocation gpu_ids_at;
  LoadBalanceSpec load_balance;
  AnalysisSpec analysis;
};

// Reads and checks a deck. Throws InputError naming file, line, column and
// key for anything malformed; nothing is touched on disk.
Deck load_deck(const std::string& path);
Deck parse_deck(const std::string& text, const std::string& path);

const char* to_string(IntegratorStyle s);
// The integrator as checkpoints name it: the style, with "+c-rescale" when
// a stochastic cell rescaling barostat runs beside the thermostat.
std::string integrator_label(const IntegratorSpec& spec);
// The style part of such a label ("nose-hoover" of "nose-hoover+c-rescale").
std::string integrator_label_style(const std::string& label);

}  // namespace tessera
