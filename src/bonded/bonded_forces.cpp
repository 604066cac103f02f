#include "bonded/bonded_forces.hpp"

#include "potentials/pair_style.hpp"

namespace tessera {

SpecialPairCorrection::SpecialPairCorrection(const PairStyle& pair, const double special_lj[3],
                                             std::shared_ptr<const BondedAtoms> atoms)
    : pair_(pair), factor_{special_lj[0], special_lj[1], special_lj[2]}, atoms_(std::move(atoms)) {}

void SpecialPairCorrection::compute_pass(int, AtomStore& a, const NeighborList& list, const PassOptions& opt) const {
  const IdMap& map = atoms_->map(a, list);
  const MolecularArrays m = molecular_arrays(a);
  const long n = static_cast<long>(a.nlocal);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    bonded_detail::Sums s;
    for (int k = 0; k < kMaxSpecial && m.special[k][i] != 0; ++k) {
      const AtomId e = m.special[k][i];
      if (special_excluded(e)) continue;  // not in the list at all
      // A partner this rank does not see is beyond the halo's reach, so
      // beyond every pair cutoff: no pair to correct.
      const int j = map.nearest(special_partner(e), a.x[i], a.y[i], a.z[i], a);
      if (j < 0) continue;
      const Vec3<double> d = bonded_detail::minus(a, static_cast<std::size_t>(i), j);
      const double r2 = dot3(d, d);
      double fpair, energy;
      pair_.eval_pair(a.type[i], a.type[j], r2, fpair, energy);
      // The list's pair counted fully; (1 - factor) of it comes off, half of
      // the energy and virial being this atom's, as in the pair kernel.
      const double drop = 1.0 - factor_[special_level(e) - 1];
      const double f[3] = {-drop * fpair * d.x, -drop * fpair * d.y, -drop * fpair * d.z};
      s.f[0] += f[0], s.f[1] += f[1], s.f[2] += f[2];
      s.e -= 0.5 * drop * energy;
      s.w -= 0.5 * drop * fpair * r2;
      if (opt.virial_tensor()) {
        const double dd[3] = {d.x, d.y, d.z};
        s.add_tensor(dd, f, 0.5);
      }
    }
    s.write(a, static_cast<std::size_t>(i), opt);
  }
}

}  // namespace tessera
