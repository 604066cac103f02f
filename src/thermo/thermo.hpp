#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "atoms/atom_store.hpp"
#include "core/units.hpp"
#include "domain/box.hpp"
#include "integrate/atom_ops.hpp"

namespace tessera {

// Global sums over local atoms, in thermo/ordered_sum.hpp's order: the
// result depends on neither the thread count nor the backend.
struct ThermoSums {
  double mv2 = 0;     // sum m v^2 (twice the kinetic energy)
  double pe = 0;      // potential energy
  double virial = 0;  // sum r.F over pairs
};
ThermoSums sum_thermo(const AtomStore& atoms);

// The sums of the pressure tensor, each xx yy zz xy xz yz: sum m v_a v_b
// (kinetic) and the per-atom virial tensor `w` (six arrays of the locals,
// as forces computed with PassOptions::tensor wrote them).
struct TensorSums {
  double kinetic[6] = {0, 0, 0, 0, 0, 0};
  double virial[6] = {0, 0, 0, 0, 0, 0};
};
TensorSums sum_tensor(const AtomStore& atoms, const double* const* w);
// The pressure tensor as LAMMPS's compute pressure gives it
// ((kinetic + virial) / V, no degree-of-freedom correction), in pressure
// units.
struct PressureTensor {
  double xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
};
PressureTensor pressure_tensor(const TensorSums& sums, double volume, const Units& units);
double sum_mv2(const AtomStore& atoms);
// LangevinHeat (integrate/step_functors.hpp) summed over the local atoms.
double sum_langevin_heat(const AtomStore& atoms, const LangevinKeys& keys, double dtf, bool first);
// The same per axis: m vx^2, m vy^2, m vz^2 (the device's bits too).
void sum_mv2_axes(const AtomStore& atoms, double out[3]);

// T = sum m v^2 / (dof k_B), 0 without degrees of freedom.
double kinetic_temperature(double mv2, double dof, const Units& units);

// The quantities LAMMPS prints with `thermo_style custom step temp pe ke etotal
// press`: T with 3N-3 degrees of freedom, pressure from the kinetic and
// virial parts, energies per atom where the units normalise thermo (lj).
struct ThermoValues {
  long step = 0;
  double temp = 0, pe = 0, ke = 0, etotal = 0, press = 0;
  double econserve = 0;  // etotal plus the thermostat's energy, normalised alike
  double ecouple = 0;    // the thermostat's and barostat's energy, normalised alike
  double vol = 0, enthalpy = 0;
  // Filled by Simulation::thermo: the box's sides, the mass density and,
  // when the step's forces had the virial tensor, the pressure tensor.
  double lx = 0, ly = 0, lz = 0, density = 0;
  bool has_tensor = false;
  double pxx = 0, pyy = 0, pzz = 0, pxy = 0, pxz = 0, pyz = 0;
};

// The columns a thermo table may show (LAMMPS's thermo_style custom
// keywords), and the default: step temp pe ke etotal press.
const std::vector<std::string>& thermo_column_names();
const std::vector<std::string>& default_thermo_columns();
// Whether a column needs the pressure tensor (pxx ... pyz).
bool thermo_column_needs_tensor(const std::string& name);
ThermoValues thermo_values(long step, const ThermoSums& sums, long long natoms, double volume, double thermostat_energy,
                           const Units& units);

// Screen table and CSV file. Every CSV number has 17 significant digits so
// it reads back bit-exact.
class ThermoWriter {
 public:
  // resume_step >= 0: a restarted run appends to an existing CSV, first
  // dropping lines after resume_step (written after the checkpoint by a run
  // that then died), so the file never repeats or skips a step.
  // `columns`: names from thermo_column_names(), in order; the screen table
  // adds econserve when `show_econserve` and the columns lack it.
  // `units`: a physical system's units label each column of the CSV header,
  // "temp (K)", and a line above the screen table; reduced units none.
  ThermoWriter(const std::string& csv_path, bool screen, bool show_econserve, long resume_step = -1,
               std::vector<std::string> columns = default_thermo_columns(), const Units* units = nullptr);
  ~ThermoWriter();
  ThermoWriter(const ThermoWriter&) = delete;
  ThermoWriter& operator=(const ThermoWriter&) = delete;
  void write(const ThermoValues& v);

 private:
  std::FILE* csv_ = nullptr;
  bool screen_;
  bool econserve_;
  bool header_done_ = false;
  std::vector<std::string> columns_;
  std::string header_;
  std::string units_line_;  // above the screen table; empty in reduced units
};

}  // namespace tessera
