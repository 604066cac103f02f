#include "bonded/bonded_forces.hpp"

#include "potentials/pair_style.hpp"

namespace tessera {

SpecialPairCorrection::SpecialPairCorrection(const PairStyle& pair, const double special_lj[3],
                                             std::shared_ptr<const BondedAtoms> atoms)
    : pair_(pair), factor_{special_lj[0], special_lj[1], special_lj[2]}, atoms_(std::move(atoms)) {}

void SpecialPairCorrection::compute_pass(int, AtomStore& a, const NeighborList& list, const PassOptions& opt) const {
  const IdMap& map = atoms_->map(a, list);
  const MolecularArrays m = molecular_arrays(a);
  partners_.refresh(a, map, list.builds, [&](int k, long i) {
    const AtomId e = m.special[k][i];
    return e == 0 || special_excluded(e) ? AtomId{0} : special_partner(e);
  });
  const long n = static_cast<long>(a.nlocal);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    bonded_detail::Sums s;
    for (int k = 0; k < kMaxSpecial && m.special[k][i] != 0; ++k) {
      const AtomId e = m.special[k][i];
      if (special_excluded(e)) continue;  // not in the list at all
      // A partner this rank does not see is beyond the halo's reach, so
      // beyond every pair cutoff: no pair to correct.
      const int j = partners_.at[k][i];
      if (j < 0) continue;
      const Vec3<double> d = bonded_detail::minus(a, static_cast<std::size_t>(i), j);
      const double r2 = dot3(d, d);
      double fpair, energy;
      pair_.eval_pair(a.type[i], a.type[j], r2, fpair, energy);
      s.take_off(1.0 - factor_[special_level(e) - 1], d, r2, fpair, energy, opt.virial_tensor());
    }
    s.write(a, static_cast<std::size_t>(i), opt);
  }
}

}  // namespace tessera
