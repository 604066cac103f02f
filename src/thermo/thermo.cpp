#include "thermo/thermo.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "io/text_output.hpp"
#include "thermo/ordered_sum.hpp"

namespace tessera {

namespace {
// The order of thermo/ordered_sum.hpp, the device's too.
template <int NV, class F>
void block_sums(long n, const F& per_atom, double* out) {
  const long nblocks = ordered_sum::blocks(n);
  std::vector<double> partial(static_cast<std::size_t>(nblocks) * NV, 0.0);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nblocks; ++b) {
    double lanes[ordered_sum::kLanes * NV];
    for (int l = 0; l < ordered_sum::kLanes; ++l) ordered_sum::lane_sum<NV>(n, b, l, per_atom, lanes + l * NV);
    ordered_sum::block_sum<NV>(lanes, partial.data() + b * NV);
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
  v.econserve = v.etotal + thermostat_energy / norm;
  return v;
}

namespace {
constexpr const char* kThermoHeader = "step,temp,pe,ke,etotal,press";
constexpr const char* kThermoKey = "output.thermo.file";
}  // namespace

ThermoWriter::ThermoWriter(const std::string& path, bool screen, bool show_econserve, long resume_step)
    : screen_(screen), econserve_(show_econserve) {
  if (path.empty()) return;
  std::uint64_t keep = 0;
  if (resume_step >= 0) {
    LineScanner in(path);
    std::string line;
    if (in.next(line)) {
      // A file that is not ours is refused rather than overwritten.
      if (line != kThermoHeader)
        throw InputError(
            fmt::format("{}:1: {}: cannot append: the header is not '{}'", path, kThermoKey, kThermoHeader));
      keep = bytes_through_step(in, resume_step, [&](LineScanner& s) -> std::optional<long> {
        if (!s.next(line)) return std::nullopt;
        return std::strtol(line.c_str(), nullptr, 10);
      });
    }
  }
  csv_ = resume_step >= 0 ? append_after(path, keep, kThermoKey) : create_text(path, kThermoKey);
  if (keep == 0 && (std::fprintf(csv_, "%s\n", kThermoHeader) < 0 || std::fflush(csv_) != 0))
    throw IoError(fmt::format("{}: {}: cannot write: {}", path, kThermoKey, std::strerror(errno)));
}

ThermoWriter::~ThermoWriter() {
  if (csv_) std::fclose(csv_);
}

void ThermoWriter::write(const ThermoValues& v) {
  if (csv_) {
    const std::string line =
        fmt::format("{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g}\n", v.step, v.temp, v.pe, v.ke, v.etotal, v.press);
    // Flushed line by line: a run that dies later keeps every line written so far.
    if (std::fputs(line.c_str(), csv_) < 0 || std::fflush(csv_) != 0)
      throw IoError(fmt::format("step {}: cannot write the thermo file: {}", v.step, std::strerror(errno)));
  }
  if (screen_) {
    if (!header_done_) {
      fmt::print("{:>10} {:>14} {:>14} {:>14} {:>14} {:>14}{}\n", "Step", "Temp", "PotEng", "KinEng", "TotEng", "Press",
                 econserve_ ? fmt::format(" {:>14}", "EConserve") : "");
      header_done_ = true;
    }
    fmt::print("{:>10} {:>14.8g} {:>14.8g} {:>14.8g} {:>14.8g} {:>14.8g}{}\n", v.step, v.temp, v.pe, v.ke, v.etotal,
               v.press, econserve_ ? fmt::format(" {:>14.8g}", v.econserve) : "");
    std::fflush(stdout);
  }
}

}  // namespace tessera
