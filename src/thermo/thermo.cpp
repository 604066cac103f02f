#include "thermo/thermo.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace tessera {

namespace {
constexpr long kBlock = 4096;

template <class F>
void block_sums(long n, int nvals, F per_atom, double* out) {
  const long nblocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<std::size_t>(nblocks) * nvals, 0.0);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nblocks; ++b) {
    double* p = partial.data() + b * nvals;
    const long end = std::min(n, (b + 1) * kBlock);
    for (long i = b * kBlock; i < end; ++i) per_atom(i, p);
  }
  for (int v = 0; v < nvals; ++v) out[v] = 0;
  for (long b = 0; b < nblocks; ++b)
    for (int v = 0; v < nvals; ++v) out[v] += partial[b * nvals + v];
}
}  // namespace

ThermoSums sum_thermo(const AtomStore& a) {
  double out[3];
  block_sums(
      static_cast<long>(a.nlocal), 3,
      [&](long i, double* p) {
        p[0] += a.mass_of_type[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
        p[1] += a.pe[i];
        p[2] += a.virial[i];
      },
      out);
  return ThermoSums{out[0], out[1], out[2]};
}

double sum_mv2(const AtomStore& a) {
  double out;
  block_sums(
      static_cast<long>(a.nlocal), 1,
      [&](long i, double* p) {
        p[0] += a.mass_of_type[a.type[i]] * (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
      },
      &out);
  return out;
}

ThermoValues thermo_values(long step, const ThermoSums& s, long long natoms, double volume, double thermostat_energy) {
  ThermoValues v;
  const double n = static_cast<double>(natoms);
  const double dof = 3.0 * n - 3.0;
  v.step = step;
  v.temp = dof > 0 ? s.mv2 / dof : 0.0;
  v.ke = 0.5 * s.mv2 / n;
  v.pe = s.pe / n;
  v.etotal = v.pe + v.ke;
  v.press = (dof * v.temp + s.virial) / (3.0 * volume);
  v.econserve = v.etotal + thermostat_energy / n;
  return v;
}

namespace {
constexpr const char* kThermoHeader = "step,temp,pe,ke,etotal,press";

// The lines of an existing thermo CSV up to and including `last_step`, or
// nothing if the file does not exist. A file that is not ours is refused
// rather than overwritten.
std::string thermo_lines_until(const std::string& path, long last_step) {
  std::ifstream in(path);
  if (!in) return {};
  std::string line, kept;
  long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (lineno == 1) {
      if (line != kThermoHeader)
        throw InputError(
            fmt::format("{}:1: output.thermo.file: cannot append: the header is not '{}'", path, kThermoHeader));
      continue;
    }
    const long step = std::strtol(line.c_str(), nullptr, 10);
    if (step > last_step) break;
    kept += line;
    kept += '\n';
  }
  return kept;
}
}  // namespace

ThermoWriter::ThermoWriter(const std::string& path, bool screen, bool show_econserve, long resume_step)
    : screen_(screen), econserve_(show_econserve) {
  if (path.empty()) return;
  std::string kept;
  if (resume_step >= 0) kept = thermo_lines_until(path, resume_step);
  // Rewritten through a temporary file: a crash here must not cost the
  // lines the earlier run wrote.
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw IoError(fmt::format("{}: output.thermo.file: cannot open for writing: {}", path, std::strerror(errno)));
  const bool ok = std::fprintf(f, "%s\n", kThermoHeader) > 0 && std::fputs(kept.c_str(), f) >= 0 && std::fflush(f) == 0;
  const int err = errno;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw IoError(fmt::format("{}: output.thermo.file: cannot write: {}", path, std::strerror(ok ? errno : err)));
  }
  csv_ = std::fopen(path.c_str(), "a");
  if (!csv_)
    throw IoError(fmt::format("{}: output.thermo.file: cannot open for appending: {}", path, std::strerror(errno)));
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
