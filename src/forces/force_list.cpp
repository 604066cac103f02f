#include "forces/force_list.hpp"

#include <algorithm>
#include <stdexcept>

#include "atoms/atom_store.hpp"

namespace tessera {

void ForceList::add(std::unique_ptr<Force> f) {
  AtomStore probe;
  for (int p = 0; p + 1 < f->passes(); ++p)
    for (const std::string& q : f->forwarded_after(p))
      if (forwardable_arrays(probe, q.c_str(), [](std::vector<double>& v) { return v.data(); }).empty())
        throw std::invalid_argument(std::string("force ") + f->name() + " forwards \"" + q +
                                    "\", which is no ghost-stored per-atom quantity of atoms/atom_fields.hpp");
  forces_.push_back(std::move(f));
}

double ForceList::max_cutoff() const {
  double c = 0;
  for (const auto& f : forces_) c = std::max(c, f->max_cutoff());
  return c;
}

bool ForceList::may_fail() const {
  for (const auto& f : forces_)
    if (f->may_fail()) return true;
  return false;
}

std::string ForceList::failure() const {
  for (const auto& f : forces_)
    if (f->may_fail())
      if (std::string why = f->failure(); !why.empty()) return why;
  return {};
}

std::vector<std::string> ForceList::warnings() const {
  std::vector<std::string> out;
  for (const auto& f : forces_)
    if (f->may_fail())
      if (std::string w = f->warning(); !w.empty()) out.push_back(std::move(w));
  return out;
}

void ForceList::compute(AtomStore& atoms, const NeighborList& list, const Forward& forward,
                        double* const* tensor, bool energy) const {
  PassOptions opt;
  opt.mixed = mixed_;
  opt.energy = energy;
  for (int c = 0; c < 6 && tensor; ++c) opt.tensor[c] = tensor[c];
  for (const auto& f : forces_) {
    for (int p = 0; p < f->passes(); ++p) {
      if (p > 0)
        for (const std::string& q : f->forwarded_after(p - 1)) forward(q);
      f->compute_pass(p, atoms, list, opt);
    }
    opt.accumulate = true;
  }
}

bool ForceList::reads_clusters() const {
  for (const auto& f : forces_)
    if (!f->reads_clusters()) return false;
  return !forces_.empty();
}

bool ForceList::computes_mixed() const {
  for (const auto& f : forces_)
    if (f->computes_mixed()) return true;
  return false;
}

bool ForceList::reads_record_offsets() const {
  for (const auto& f : forces_)
    if (!f->reads_record_offsets()) return false;
  return !forces_.empty();
}

bool ForceList::reads_half_list() const {
  for (const auto& f : forces_)
    if (!f->reads_half_list()) return false;
  return true;
}

}  // namespace tessera
