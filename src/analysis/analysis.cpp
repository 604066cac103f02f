#include "analysis/analysis.hpp"

#include <fmt/format.h>

#include <cstring>
#include <numeric>
#include <stdexcept>

#include "analysis/msd.hpp"
#include "comm/communicator.hpp"
#include "deck/yaml_section.hpp"
#include "io/checkpoint.hpp"
#include "io/h5md_writer.hpp"
#include "run/simulation.hpp"

namespace tessera {

namespace {

// Every rank's histogram added up on rank 0 (the others get theirs back).
std::vector<std::int64_t> sum_on_root(const std::vector<std::int64_t>& mine, const Communicator& comm) {
  if (!comm.parallel()) return mine;
  const char* p = reinterpret_cast<const char*>(mine.data());
  const auto parts = comm.gather_to_root(std::vector<char>(p, p + mine.size() * sizeof(std::int64_t)));
  std::vector<std::int64_t> total(mine.size(), 0), part(mine.size());
  for (const auto& bytes : parts) {
    if (bytes.size() != part.size() * sizeof(std::int64_t))
      throw std::logic_error("g(r) histograms of different sizes on different ranks");
    std::memcpy(part.data(), bytes.data(), bytes.size());
    for (std::size_t k = 0; k < total.size(); ++k) total[k] += part[k];
  }
  return comm.rank() == 0 ? total : mine;
}

}  // namespace

void check_analysis(const AnalysisSpec& spec, double max_cutoff, const Box& box, int ntypes) {
  if (!spec.rdf) return;
  const RdfSpec& r = *spec.rdf;
  for (const auto& p : r.pairs)
    if (p[0] > ntypes || p[1] > ntypes)
      throw_at(r.pairs_at, fmt::format("type pair [{}, {}] names a type above the {} atom type(s) of the system", p[0],
                                       p[1], ntypes));
  if (r.r_max > max_cutoff)
    throw_at(r.r_max_at,
             fmt::format("{} is beyond the largest pair cutoff {}: g(r) is counted from the neighbour list, which "
                         "holds no pairs farther apart (raise potential.cutoff, or compute g(r) from the trajectory "
                         "with tools/tessera-plot)",
                         r.r_max, max_cutoff));
  // The cutoff + skin <= L/2 rule keeps the default within this; a farther
  // r_max would count some pairs through two periodic images.
  const double half = 0.5 * box.min_length();
  const double r_max = r.r_max > 0 ? r.r_max : max_cutoff;
  if (r_max > half)
    throw_at(r.r_max_at,
             fmt::format("{} is beyond half the shortest box length ({}), the minimum-image limit", r_max, half));
}

void msd_row(const AtomStore& a, std::size_t i, const Box& box, double* out) {
  out[0] = a.type[i];
  unwrapped_position(a, i, box, out + 1);
}

MsdOrigin resumed_msd_origin(const CheckpointState* state, const Communicator& comm) {
  MsdOrigin o;
  const bool held = comm.rank() == 0 && state && !state->msd_origin.empty();
  if (held) o.position = state->msd_origin;
  // Rank 0's word, the others adding 0.
  const long long step = held ? static_cast<long long>(state->msd_origin_step) : -1LL;
  o.step = static_cast<long>(comm.sum(comm.rank() == 0 ? step : 0LL));
  return o;
}

Analysis::Analysis(const Deck& deck, const Simulation& sim, MsdOrigin origin)
    : comm_(sim.comm()), origin_(std::move(origin.position)) {
  const AtomStore& a = sim.atoms();
  ntypes_ = a.ntypes;
  // Counts below 2^53 add up exactly in doubles.
  std::vector<double> count(static_cast<std::size_t>(ntypes_) + 1, 0.0);
  for (std::size_t i = 0; i < a.nlocal; ++i) {
    count[0] += 1;
    count[a.type[i]] += 1;
  }
  comm_.sum_in_rank_order(count.data(), static_cast<int>(count.size()));
  atoms_of_type_.assign(count.begin(), count.end());
  if (const auto& r = deck.analysis.rdf) {
    rdf_every_ = r->every;
    layout_.bins = r->bins;
    layout_.r_max = r->r_max > 0 ? r->r_max : sim.potential().max_cutoff();
    layout_.ntypes = ntypes_;
    layout_.pairs = r->pairs;
  }
  if (const auto& m = deck.analysis.msd) msd_every_ = m->every;
  has_origin_ = origin.step >= 0;
  origin_step_ = has_origin_ ? origin.step : sim.step();
}

void Analysis::declare(H5mdWriter& out) {
  out_ = &out;
  if (rdf_every_ > 0) {
    ObservableSeries s;
    s.name = "rdf";
    s.shape = {static_cast<std::size_t>(layout_.rows()), static_cast<std::size_t>(layout_.bins)};
    std::vector<std::int64_t> pairs = {0, 0};  // row 0: all atoms
    for (const auto& p : layout_.pairs) pairs.insert(pairs.end(), {p[0], p[1]});
    s.axes = {{"r", rdf_bin_centres(layout_), {}, 0}, {"pairs", {}, pairs, 2}};
    rdf_series_ = out.add_series(s);
  }
  if (msd_every_ > 0) {
    ObservableSeries s;
    s.name = "msd";
    s.shape = {static_cast<std::size_t>(ntypes_) + 1, static_cast<std::size_t>(kMsdColumns)};
    std::vector<std::int64_t> types(static_cast<std::size_t>(ntypes_) + 1);
    std::iota(types.begin(), types.end(), 0);  // row 0: all atoms
    s.axes = {{"types", {}, types, 0}, {"origin_step", {}, {origin_step_}, 0}};
    msd_series_ = out.add_series(s);
  }
}

void Analysis::sample_rdf(const Simulation& sim) {
  const auto total = sum_on_root(rdf_histogram(sim.atoms(), sim.neighbor_list(), layout_), comm_);
  if (!out_) return;
  out_->write_series(rdf_series_, sim.step(), sim.time(),
                     rdf_normalise(total, layout_, atoms_of_type_, sim.box().volume()));
}

namespace {

// msd_row values split into types and positions.
void split_msd_rows(const std::vector<double>& rows, std::vector<int>& type, std::vector<double>& position) {
  const std::size_t n = rows.size() / kMsdRowWidth;
  type.resize(n);
  position.resize(3 * n);
  for (std::size_t k = 0; k < n; ++k) {
    type[k] = static_cast<int>(rows[k * kMsdRowWidth]);
    for (int c = 0; c < 3; ++c) position[3 * k + c] = rows[k * kMsdRowWidth + 1 + c];
  }
}

}  // namespace

void Analysis::set_msd_origin(const std::vector<double>& rows) {
  std::vector<int> type;
  split_msd_rows(rows, type, origin_);
  has_origin_ = true;
}

void Analysis::sample_msd(long step, double time, const std::vector<double>& rows) {
  std::vector<int> type;
  std::vector<double> position;
  split_msd_rows(rows, type, position);
  if (!has_origin_ || origin_.size() != position.size())
    throw std::logic_error("MSD sampled without its origin positions");
  out_->write_series(msd_series_, step, time, msd_values(position, origin_, type, ntypes_));
}

}  // namespace tessera
