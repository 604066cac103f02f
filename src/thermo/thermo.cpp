#include "thermo/thermo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "integrate/step_functors.hpp"
#include "io/text_output.hpp"
#include "thermo/ordered_sum.hpp"

namespace tessera {

namespace {
// The order of thermo/ordered_sum.hpp, the device's too. Its lanes advance
// together here, a row of kLanes atoms at a time: each lane still adds its
// atoms in atom order (the same bits as lane_sum's), but the lanes' sums are
// independent chains the core overlaps and the loads are contiguous, where
// lane_sum a lane at a time was one chain of dependent additions striding
// through the block (the kinetic and thermo sums were 5-6 % of an in.lj 32k
// npt run, whose barostat sums every step).
template <int NV, class F>
void block_sums(long n, const F& per_atom, double* out) {
  constexpr int kLanes = ordered_sum::kLanes;
  const long nblocks = ordered_sum::blocks(n);
  std::vector<double> partial(static_cast<std::size_t>(nblocks) * NV, 0.0);
#pragma omp parallel
  {
    const F f = per_atom;  // a copy per thread: its fields stay in registers
#pragma omp for schedule(static)
    for (long b = 0; b < nblocks; ++b) {
      double acc[NV][kLanes] = {};
      const long end = std::min((b + 1) * ordered_sum::kBlock, n);
      for (long row = b * ordered_sum::kBlock; row < end; row += kLanes) {
        const int m = static_cast<int>(std::min<long>(kLanes, end - row));
#pragma omp simd
        for (int l = 0; l < m; ++l) {
          double t[NV];
          for (int v = 0; v < NV; ++v) t[v] = acc[v][l];
          f(row + l, t);
          for (int v = 0; v < NV; ++v) acc[v][l] = t[v];
        }
      }
      double lanes[kLanes * NV];
      for (int l = 0; l < kLanes; ++l)
        for (int v = 0; v < NV; ++v) lanes[l * NV + v] = acc[v][l];
      ordered_sum::block_sum<NV>(lanes, partial.data() + b * NV);
    }
  }
  ordered_sum::total<NV>(partial.data(), nblocks, out);
}

ordered_sum::MassVelocitySq mv2_terms(const AtomStore& a) {
  return {a.type.data(), a.mass_of_type.data(), a.vx.data(), a.vy.data(), a.vz.data()};
}
}  // namespace

ThermoSums sum_thermo(const AtomStore& a) {
  double out[3];
  block_sums<3>(static_cast<long>(a.nlocal), ordered_sum::ThermoTerms{mv2_terms(a), a.pe.data(), a.virial.data()}, out);
  return ThermoSums{out[0], out[1], out[2]};
}

TensorSums sum_tensor(const AtomStore& a, const double* const* w) {
  double out[12];
  block_sums<12>(static_cast<long>(a.nlocal), ordered_sum::TensorTerms{mv2_terms(a), {w[0], w[1], w[2], w[3], w[4], w[5]}},
                 out);
  TensorSums s;
  for (int c = 0; c < 6; ++c) {
    s.kinetic[c] = out[c];
    s.virial[c] = out[6 + c];
  }
  return s;
}

PressureTensor pressure_tensor(const TensorSums& s, double volume, const Units& u) {
  double p[6];
  for (int c = 0; c < 6; ++c) p[c] = (s.kinetic[c] * u.mvv2e + s.virial[c]) / volume * u.nktv2p;
  return PressureTensor{p[0], p[1], p[2], p[3], p[4], p[5]};
}

double sum_mv2(const AtomStore& a) {
  double out;
  block_sums<1>(static_cast<long>(a.nlocal), mv2_terms(a), &out);
  return out;
}

double sum_langevin_heat(const AtomStore& a, const LangevinKeys& k, double dtf, bool first) {
  // LangevinForce reads and writes through its pointers; the sum only reads.
  auto& w = const_cast<AtomStore&>(a);
  const LangevinForce lf{k.inv_damp, k.noise_scale, k.seed, k.step, a.id.data(), a.type.data(),
                         a.mass_of_type.data(), a.vx.data(), a.vy.data(), a.vz.data(), w.fx.data(),
                         w.fy.data(), w.fz.data()};
  double out;
  block_sums<1>(static_cast<long>(a.nlocal), LangevinHeat{lf, dtf, first}, &out);
  return out;
}

void sum_mv2_axes(const AtomStore& a, double out[3]) {
  block_sums<3>(static_cast<long>(a.nlocal), ordered_sum::MassVelocityAxes{mv2_terms(a)}, out);
}

double kinetic_temperature(double mv2, double dof, const Units& u) {
  return dof > 0 ? mv2 * u.mvv2e / (dof * u.boltz) : 0.0;
}

// The factors sit where LAMMPS has them; each is 1 in lj units, and x * 1
// and x / 1 are exact, so lj results keep every bit.
ThermoValues thermo_values(long step, const ThermoSums& s, long long natoms, double volume, double thermostat_energy,
                           const Units& u) {
  ThermoValues v;
  const double n = static_cast<double>(natoms);
  const double dof = 3.0 * n - 3.0;
  const double norm = u.normalize_thermo ? n : 1.0;
  v.step = step;
  v.temp = kinetic_temperature(s.mv2, dof, u);
  v.ke = 0.5 * s.mv2 * u.mvv2e / norm;
  v.pe = s.pe / norm;
  v.etotal = v.pe + v.ke;
  v.press = (dof * u.boltz * v.temp + s.virial) / (3.0 * volume) * u.nktv2p;
  v.ecouple = thermostat_energy / norm;
  v.econserve = v.etotal + v.ecouple;
  v.vol = volume;
  // LAMMPS's compute enthalpy: E + P V, V per atom where energies are.
  v.enthalpy = v.etotal + v.press * (volume / norm) / u.nktv2p;
  return v;
}

namespace {
constexpr const char* kThermoKey = "output.thermo.file";

// What a column measures, for its unit.
enum class Quantity { kNone, kTemperature, kEnergy, kPressure, kVolume, kDensity, kLength };

// One column: its name (CSV header, deck), its screen heading (LAMMPS's),
// its value and what it measures.
struct Column {
  const char* name;
  const char* heading;
  double (*value)(const ThermoValues&);
  bool tensor;
  Quantity quantity;
};

const Column kColumns[] = {
    {"step", "Step", [](const ThermoValues& v) { return static_cast<double>(v.step); }, false, Quantity::kNone},
    {"temp", "Temp", [](const ThermoValues& v) { return v.temp; }, false, Quantity::kTemperature},
    {"pe", "PotEng", [](const ThermoValues& v) { return v.pe; }, false, Quantity::kEnergy},
    {"ke", "KinEng", [](const ThermoValues& v) { return v.ke; }, false, Quantity::kEnergy},
    {"etotal", "TotEng", [](const ThermoValues& v) { return v.etotal; }, false, Quantity::kEnergy},
    {"press", "Press", [](const ThermoValues& v) { return v.press; }, false, Quantity::kPressure},
    {"econserve", "EConserve", [](const ThermoValues& v) { return v.econserve; }, false, Quantity::kEnergy},
    {"ecouple", "Ecouple", [](const ThermoValues& v) { return v.ecouple; }, false, Quantity::kEnergy},
    {"vol", "Volume", [](const ThermoValues& v) { return v.vol; }, false, Quantity::kVolume},
    {"density", "Density", [](const ThermoValues& v) { return v.density; }, false, Quantity::kDensity},
    {"lx", "Lx", [](const ThermoValues& v) { return v.lx; }, false, Quantity::kLength},
    {"ly", "Ly", [](const ThermoValues& v) { return v.ly; }, false, Quantity::kLength},
    {"lz", "Lz", [](const ThermoValues& v) { return v.lz; }, false, Quantity::kLength},
    {"enthalpy", "Enthalpy", [](const ThermoValues& v) { return v.enthalpy; }, false, Quantity::kEnergy},
    {"pxx", "Pxx", [](const ThermoValues& v) { return v.pxx; }, true, Quantity::kPressure},
    {"pyy", "Pyy", [](const ThermoValues& v) { return v.pyy; }, true, Quantity::kPressure},
    {"pzz", "Pzz", [](const ThermoValues& v) { return v.pzz; }, true, Quantity::kPressure},
    {"pxy", "Pxy", [](const ThermoValues& v) { return v.pxy; }, true, Quantity::kPressure},
    {"pxz", "Pxz", [](const ThermoValues& v) { return v.pxz; }, true, Quantity::kPressure},
    {"pyz", "Pyz", [](const ThermoValues& v) { return v.pyz; }, true, Quantity::kPressure},
};

const Column& column(const std::string& name) {
  for (const Column& c : kColumns)
    if (name == c.name) return c;
  throw std::invalid_argument("unknown thermo column " + name);
}

// The unit a column's values are in; empty for reduced units and the step.
std::string unit_of(const Column& c, const Units* u) {
  if (!u || u->reduced) return "";
  switch (c.quantity) {
    case Quantity::kTemperature: return u->symbols.temperature;
    case Quantity::kEnergy: return u->symbols.energy;
    case Quantity::kPressure: return u->symbols.pressure;
    case Quantity::kVolume: return u->symbols.length + "^3";
    case Quantity::kDensity: return u->symbols.density;
    case Quantity::kLength: return u->symbols.length;
    case Quantity::kNone: break;
  }
  return "";
}
}  // namespace

const std::vector<std::string>& thermo_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Column& c : kColumns) n.emplace_back(c.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& default_thermo_columns() {
  static const std::vector<std::string> d = {"step", "temp", "pe", "ke", "etotal", "press"};
  return d;
}

bool thermo_column_needs_tensor(const std::string& name) { return column(name).tensor; }

ThermoWriter::ThermoWriter(const std::string& path, bool screen, bool show_econserve, long resume_step,
                           std::vector<std::string> columns, const Units* units)
    : screen_(screen), econserve_(show_econserve), columns_(std::move(columns)) {
  for (std::size_t k = 0; k < columns_.size(); ++k) {
    const Column& c = column(columns_[k]);  // known, or std::invalid_argument
    const std::string unit = unit_of(c, units);
    header_ += (k ? "," : "") + columns_[k] + (unit.empty() ? "" : " (" + unit + ")");
    if (!unit.empty()) units_line_ += fmt::format("{}{} {}", units_line_.empty() ? "" : ", ", c.heading, unit);
    if (columns_[k] == "econserve") econserve_ = false;  // shown once
  }
  if (econserve_ && units && !units->reduced)
    units_line_ += fmt::format(", EConserve {}", unit_of(column("econserve"), units));
  if (!units_line_.empty())
    units_line_ = fmt::format("Units {} ({}): {}", units->name, units->normalize_thermo ? "per atom" : "totals",
                              units_line_);
  if (path.empty()) return;
  std::uint64_t keep = 0;
  if (resume_step >= 0) {
    LineScanner in(path);
    std::string line;
    if (in.next(line)) {
      // A file that is not ours is refused rather than overwritten.
      if (line != header_)
        throw InputError(
            fmt::format("{}:1: {}: cannot append: the header is not '{}'", path, kThermoKey, header_));
      keep = bytes_through_step(in, resume_step, [&](LineScanner& s) -> std::optional<long> {
        if (!s.next(line)) return std::nullopt;
        return std::strtol(line.c_str(), nullptr, 10);
      });
    }
  }
  csv_ = resume_step >= 0 ? append_after(path, keep, kThermoKey) : create_text(path, kThermoKey);
  if (keep == 0 && (std::fprintf(csv_, "%s\n", header_.c_str()) < 0 || std::fflush(csv_) != 0))
    throw IoError(fmt::format("{}: {}: cannot write: {}", path, kThermoKey, std::strerror(errno)));
}

ThermoWriter::~ThermoWriter() {
  if (csv_) std::fclose(csv_);
}

void ThermoWriter::write(const ThermoValues& v) {
  if (csv_) {
    std::string line;
    for (const std::string& name : columns_) {
      if (!line.empty()) line += ',';
      if (name == "step")
        line += fmt::format("{}", v.step);
      else
        line += fmt::format("{:.17g}", column(name).value(v));
    }
    line += '\n';
    // Flushed line by line: a run that dies later keeps every line written so far.
    if (std::fputs(line.c_str(), csv_) < 0 || std::fflush(csv_) != 0)
      throw IoError(fmt::format("step {}: cannot write the thermo file: {}", v.step, std::strerror(errno)));
  }
  if (screen_) {
    if (!header_done_) {
      if (!units_line_.empty()) fmt::print("{}\n", units_line_);
      std::string h;
      for (const std::string& name : columns_)
        h += name == "step" ? fmt::format("{:>10}", "Step") : fmt::format(" {:>14}", column(name).heading);
      fmt::print("{}{}\n", h, econserve_ ? fmt::format(" {:>14}", "EConserve") : "");
      header_done_ = true;
    }
    std::string row;
    for (const std::string& name : columns_)
      row += name == "step" ? fmt::format("{:>10}", v.step) : fmt::format(" {:>14.8g}", column(name).value(v));
    fmt::print("{}{}\n", row, econserve_ ? fmt::format(" {:>14.8g}", v.econserve) : "");
    std::fflush(stdout);
  }
}

}  // namespace tessera
