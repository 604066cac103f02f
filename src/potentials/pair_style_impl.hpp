#pragma once
// Turns a potential functor (see lj_cut.hpp) into a runnable PairStyle.
#include <algorithm>
#include <vector>

#include "atoms/atom_store.hpp"
#include "backend/cpu_exec.hpp"
#include "neighbor/neighbor_list.hpp"
#include "potentials/pair_force.hpp"
#include "potentials/pair_style.hpp"

namespace tessera {

template <class Pot>
class PairStyleImpl final : public PairStyle {
 public:
  PairStyleImpl(int ntypes, const std::vector<PairCoeffs>& table, bool shift) : ntp_(ntypes + 1) {
    params_.resize(table.size());
    for (std::size_t k = 0; k < table.size(); ++k) {
      params_[k] = Pot::params(table[k], shift);
      const int ti = static_cast<int>(k) / ntp_, tj = static_cast<int>(k) % ntp_;
      if (ti > 0 && tj > 0) max_cutoff_ = std::max(max_cutoff_, table[k].cutoff);
    }
  }

  const char* name() const override { return Pot::name; }
  double max_cutoff() const override { return max_cutoff_; }

  void compute(AtomStore& a, const NeighborList& nl) const override {
    PairForce<Pot> f{a.x.data(),      a.y.data(),  a.z.data(),     a.type.data(),  nl.index.data(),
                     nl.count.data(), nl.stride,   params_.data(), ntp_,           a.fx.data(),
                     a.fy.data(),     a.fz.data(), a.pe.data(),    a.virial.data()};
    cpu_for(a.nlocal, f);
  }

  void eval_pair(int ti, int tj, double r2, double& fpair, double& energy) const override {
    const auto& p = params_[ti * ntp_ + tj];
    if (r2 >= p.cutsq) {
      fpair = energy = 0;
      return;
    }
    Pot::eval(r2, p, fpair, energy);
  }

  const std::vector<typename Pot::Params>& params() const { return params_; }

 private:
  int ntp_;
  double max_cutoff_ = 0;
  std::vector<typename Pot::Params> params_;
};

template <class Pot>
PairStyleEntry describe_pair_style() {
  PairStyleEntry e;
  e.name = Pot::name;
  e.coeff_names.assign(Pot::coeff_names, Pot::coeff_names + Pot::ncoeff);
  e.mix = &Pot::mix;
  e.check = &Pot::check;
  e.make = [](int ntypes, const std::vector<PairCoeffs>& table, bool shift) -> std::unique_ptr<PairStyle> {
    return std::make_unique<PairStyleImpl<Pot>>(ntypes, table, shift);
  };
  return e;
}

}  // namespace tessera
