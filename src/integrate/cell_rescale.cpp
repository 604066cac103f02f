#include "integrate/cell_rescale.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "integrate/ramp.hpp"
#include "random/philox.hpp"

namespace tessera {

std::array<double, 3> cell_rescale_strain(const CellRescaleInput& in, const std::array<double, 3>& normal) {
  const double factor = in.compressibility * in.dt / in.damping;
  // kT / V in pressure units: the scale of the volume's thermal fluctuations.
  const double kt_per_volume = in.kt / in.volume * in.nktv2p;
  std::array<double, 3> strain;
  if (!in.aniso) {
    const double dlnv =
        -factor * (in.pressure_target - in.pressure[0]) + std::sqrt(2.0 * kt_per_volume * factor) * normal[0];
    strain = {dlnv / 3.0, dlnv / 3.0, dlnv / 3.0};
  } else {
    const double third = factor / 3.0;
    const double noise = std::sqrt(2.0 * kt_per_volume * third);
    for (int d = 0; d < 3; ++d) strain[d] = -third * (in.pressure_target - in.pressure[d]) + noise * normal[d];
  }
  return strain;
}

std::array<double, 4> cell_rescale_normals(std::uint64_t seed, long step) {
  const Philox4x32 r = random_words(seed, RandomStream::kBarostat, static_cast<std::uint64_t>(step), 0);
  std::array<double, 4> n;
  normal_pair(r.v[0], r.v[1], n[0], n[1]);
  normal_pair(r.v[2], r.v[3], n[2], n[3]);
  return n;
}

CellRescale::CellRescale(const IntegratorSpec& spec, const Units& units, long long natoms, const Communicator* comm)
    : spec_(spec),
      units_(units),
      dof_(3.0 * static_cast<double>(natoms) - 3.0),
      comm_(comm),
      aniso_(spec.coupling == PressureCoupling::kAniso) {}

std::array<double, 3> CellRescale::virial(const CellControl& cell) const {
  if (aniso_) return cell.virial_diagonal();
  const double w = cell.virial_trace() / 3.0;
  return {w, w, w};
}

void CellRescale::move(AtomOps& atoms, CellControl& cell, long step) {
  const Box from = cell.box();
  const double volume = from.volume();
  // Twice the kinetic energy along each side (iso: the total in [0]), and
  // the driving pressure, as thermo computes it.
  double k2[3] = {0, 0, 0};
  std::array<double, 3> p;
  double trace = 0.0;
  std::array<double, 3> w;
  if (!aniso_) {
    trace = cell.virial_trace();
    w = {trace / 3.0, trace / 3.0, trace / 3.0};
  } else {
    w = cell.virial_diagonal();
  }
  if (!aniso_) {
    double mv2 = atoms.sum_mv2();
    if (comm_) comm_->sum_in_rank_order(&mv2, 1);
    k2[0] = mv2 * units_.mvv2e;
    const double t = k2[0] / (dof_ * units_.boltz);
    const double scalar = (dof_ * units_.boltz * t + trace) / (3.0 * volume) * units_.nktv2p;
    p = {scalar, scalar, scalar};
  } else {
    double axes[3];
    atoms.sum_mv2_axes(axes);
    if (comm_) comm_->sum_in_rank_order(axes, 3);
    for (int d = 0; d < 3; ++d) {
      k2[d] = axes[d] * units_.mvv2e;
      p[d] = (k2[d] + w[d]) / volume * units_.nktv2p;
    }
  }
  for (double pd : p)
    if (!std::isfinite(pd))
      throw SimulationError(fmt::format("step {}: c-rescale: the pressure is {}: the run is unstable", step, pd));

  const CellRescaleInput in{ramped(spec_.pressure, spec_.pressure_stop, step, spec_.ramp_steps),
                            p,
                            volume,
                            units_.boltz * spec_.temperature,
                            spec_.compressibility,
                            spec_.pressure_damping,
                            spec_.dt,
                            units_.nktv2p,
                            aniso_};
  const std::array<double, 4> xi = cell_rescale_normals(spec_.barostat_seed, step);
  strain_ = cell_rescale_strain(in, {xi[0], xi[1], xi[2]});
  for (int d = 0; d < 3; ++d)
    if (!(std::abs(strain_[d]) <= 0.1))
      throw SimulationError(fmt::format(
          "step {}: c-rescale would scale the box's {} side by {:.4g} in one step (pressure {:.6g}, target {:.6g}): "
          "raise barostat.damping or lower barostat.compressibility",
          step, "xyz"[d], std::exp(strain_[d]), p[d], in.pressure_target));

  // Each side scaled about the box's centre; the atoms keep their fractional places.
  Box to = from;
  for (int d = 0; d < 3; ++d) {
    const double mu = std::exp(strain_[d]);
    const double centre = 0.5 * (from.lo[d] + from.hi[d]);
    to.lo[d] = (from.lo[d] - centre) * mu + centre;
    to.hi[d] = (from.hi[d] - centre) * mu + centre;
  }
  atoms.remap(from, to);
  cell.move_box(to);
  if (!aniso_) {
    atoms.scale_velocities(std::exp(-strain_[0]));
  } else {
    const double f[3] = {std::exp(-0.5 * strain_[0]), std::exp(-0.5 * strain_[1]), std::exp(-0.5 * strain_[2])};
    atoms.scale_velocities_twice(f);
  }

  // The move's work on the particles: the kinetic part exactly, the
  // potential part by the trapezoid over ln L_d (-dU/d ln L_d is the
  // virial W_d), whose second half finish() adds with the new forces.
  double dk = 0.0, du = 0.0;
  for (int d = 0; d < (aniso_ ? 3 : 1); ++d) dk += 0.5 * k2[d] * std::expm1(-2.0 * strain_[d]);
  for (int d = 0; d < 3; ++d) du -= 0.5 * strain_[d] * w[d];
  energy_ -= dk + du;
  pending_ = true;
}

void CellRescale::finish(const CellControl& cell) {
  if (!pending_) return;
  const std::array<double, 3> w = virial(cell);
  double du = 0.0;
  for (int d = 0; d < 3; ++d) du -= 0.5 * strain_[d] * w[d];
  energy_ -= du;
  pending_ = false;
}

void CellRescale::restore(const std::vector<double>& s) {
  if (s.size() != 2)
    throw InputError(
        fmt::format("the checkpoint's barostat state has {} values, c-rescale needs 2 (a checkpoint of "
                    "another barostat?)",
                    s.size()));
  energy_ = s[0];
  heat_ = s[1];
  pending_ = false;
}

}  // namespace tessera
