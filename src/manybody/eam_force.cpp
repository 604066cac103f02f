#include "manybody/eam_force.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "atoms/atom_store.hpp"
#include "backend/cpu_eam_kernel.hpp"
#include "backend/cpu_exec.hpp"
#include "backend/cpu_pair_kernel.hpp"
#include "backend/cpu_positions.hpp"
#include "backend/cpu_shares.hpp"
#include "core/error.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_section.hpp"
#include "manybody/eam_kernels.hpp"
#include "neighbor/neighbor_list.hpp"

namespace tessera {

namespace {

// The registered per-atom field (atoms/atom_fields.hpp) that carries F'.
constexpr const char* kForwarded = "embedding_derivative";

// A file's problem as the deck's: where potential.file is, then the file's
// own file:line message.
template <class F>
auto at_file(const PotentialSpec& spec, F&& read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw_at(spec.files_at, e.what());
  }
}

std::vector<EamFile> read_funcfl(const PotentialSpec& spec, std::vector<std::string>& distinct) {
  distinct.clear();
  for (const std::string& f : spec.files)
    if (std::find(distinct.begin(), distinct.end(), f) == distinct.end()) distinct.push_back(f);
  std::vector<EamFile> files;
  for (const std::string& f : distinct)
    files.push_back(at_file(spec, [&] { return read_eam_file(f, EamFormat::kFuncfl); }));
  return files;
}

EamFile read_one(const PotentialSpec& spec, EamFormat format) {
  EamFile f = at_file(spec, [&] { return read_eam_file(spec.files.at(0), format); });
  for (const std::string& e : spec.elements)
    if (f.element_index(e) < 0)
      throw_at(spec.elements_at,
               fmt::format("element {} is not in {} (it has {})", e, f.path, fmt::join(f.elements, ", ")));
  return f;
}

double funcfl_cutoff(const PotentialSpec& spec) {
  std::vector<std::string> distinct;
  double cut = 0;
  for (const EamFile& f : read_funcfl(spec, distinct)) cut = std::max(cut, f.cut);
  return cut;
}

// The funcfl files of a system of `ntypes` types, and the one each type uses.
struct FuncflTypes {
  std::vector<EamFile> files;
  std::vector<int> file_of_type;  // 1..ntypes, [0] unused
};

FuncflTypes funcfl_types(const PotentialSpec& spec, int ntypes) {
  const int n = static_cast<int>(spec.files.size());
  if (n != 1 && n != ntypes)
    throw_at(spec.files_at, fmt::format("{} files for the {} atom type(s) of the system: give one for every type, "
                                        "or one per type in type order",
                                        n, ntypes));
  std::vector<std::string> distinct;
  FuncflTypes out;
  out.files = read_funcfl(spec, distinct);
  out.file_of_type.assign(ntypes + 1, 0);
  for (int t = 1; t <= ntypes; ++t) {
    const std::string& f = spec.files[n == 1 ? 0 : t - 1];
    out.file_of_type[t] = static_cast<int>(std::find(distinct.begin(), distinct.end(), f) - distinct.begin());
  }
  return out;
}

std::unique_ptr<Force> make_funcfl(const PotentialSpec& spec, int ntypes) {
  const FuncflTypes ft = funcfl_types(spec, ntypes);
  return std::make_unique<EamForce>(spec.style, eam_tables_funcfl(ft.files, ft.file_of_type));
}

// A funcfl file's mass is its element's (the line "Z mass a lattice").
std::vector<FileMass> funcfl_masses(const PotentialSpec& spec, int ntypes) {
  const FuncflTypes ft = funcfl_types(spec, ntypes);
  std::vector<FileMass> m(ntypes + 1);
  for (int t = 1; t <= ntypes; ++t) {
    const EamFile& f = ft.files[ft.file_of_type[t]];
    m[t] = {f.mass.at(0), f.path};
  }
  return m;
}

template <EamFormat kFormat>
double setfl_cutoff(const PotentialSpec& spec) {
  return read_one(spec, kFormat).cut;
}

// The element of each of the `ntypes` atom types in `f` (1..ntypes, [0] unused).
std::vector<int> setfl_types(const PotentialSpec& spec, const EamFile& f, int ntypes) {
  const int n = static_cast<int>(spec.elements.size());
  if (n < ntypes)
    throw_at(spec.elements_at, fmt::format("atom type {} has no element: elements names {} for the {} atom type(s) "
                                           "of the system (one per type, in type order)",
                                           n + 1, n, ntypes));
  if (n > ntypes)
    throw_at(spec.elements_at,
             fmt::format("elements names {} for the {} atom type(s) of the system (one per type)", n, ntypes));
  std::vector<int> element_of_type(ntypes + 1, 0);
  for (int t = 1; t <= ntypes; ++t) element_of_type[t] = f.element_index(spec.elements[t - 1]);
  return element_of_type;
}

template <EamFormat kFormat>
std::unique_ptr<Force> make_setfl(const PotentialSpec& spec, int ntypes) {
  const EamFile f = read_one(spec, kFormat);
  return std::make_unique<EamForce>(spec.style, eam_tables_setfl(f, setfl_types(spec, f, ntypes)));
}

template <EamFormat kFormat>
std::vector<FileMass> setfl_masses(const PotentialSpec& spec, int ntypes) {
  const EamFile f = read_one(spec, kFormat);
  const std::vector<int> element_of_type = setfl_types(spec, f, ntypes);
  std::vector<FileMass> m(ntypes + 1);
  for (int t = 1; t <= ntypes; ++t) m[t] = {f.mass.at(element_of_type[t]), f.path};
  return m;
}

}  // namespace

std::vector<std::string> EamForce::forwarded_after(int pass) const {
  if (pass == 0) return {kForwarded};
  return {};
}

void EamForce::compute_pass(int pass, AtomStore& a, const NeighborList& nl, const PassOptions& opt) const {
  compute_pass_with(pass, a, nl, opt, simd_level());
}

void EamForce::compute_pass_with(int pass, AtomStore& a, const NeighborList& nl, const PassOptions& opt,
                                 std::optional<SimdLevel> level) const {
  if (pass == 0) embed_.resize(a.nlocal);
  if (!level) {
    functor_pass(pass, a, nl, opt);
    return;
  }
  const EamView v = eam_view(tables_);
  EamKernelArgs k;
  k.one_type = pack_positions(a, pos_);
  k.pos = pos_.data();
  k.nbr = rows_with_shift(nl, 0, rows_);
  k.nbr_count = nl.count.data();
  k.stride = nl.stride;
  k.padded = nl.pad % kPairLanes == 0 && nl.stride % kPairLanes == 0;
  k.rhor = v.rhor;
  k.z2r = v.z2r;
  k.type2rhor = v.type2rhor;
  k.type2z2r = v.type2z2r;
  k.ntp = v.ntp;
  k.nr = v.nr;
  k.rdr = v.rdr;
  k.cutsq = v.cutsq;
  double* fp = a.embedding_derivative.data();
  k.kept_stride = nl.stride + kPairLanes;
  if (pass == 0) {
    rho_.resize(a.nlocal);
    kept_.resize(a.nlocal * k.kept_stride);
    kept_count_.resize(a.nlocal);
    k.rho = rho_.data();
  } else {
    // The force pass reads the rows the density pass kept for these atoms
    // and this list, as it reads the F' that pass left.
    if (kept_count_.size() != a.nlocal || kept_.size() != a.nlocal * k.kept_stride)
      throw std::logic_error("EAM force pass without the density pass of the same atoms");
    k.fp = fp;
    k.embed = embed_.data();
    static_cast<KernelOutputs&>(k) = kernel_outputs(a, opt);
  }
  k.kept = kept_.data();
  k.kept_count = kept_count_.data();
  const EamKernelFn fn = eam_kernel_for(*level, pass);
  const int* type = a.type.data();
  double* embed = embed_.data();
  const double* rho = rho_.data();
  // Chunks as the pair kernel's rows (backend/cpu_shares.hpp): each atom's
  // sums are its own, so no result depends on who runs a chunk.
  const long nlocal = static_cast<long>(a.nlocal);
  for_chunks_own_first(pos_chunks(nlocal), [&](long c) {
    const int begin = static_cast<int>(c * kPosChunk), end = static_cast<int>(std::min(nlocal, (c + 1) * kPosChunk));
    fn(k, begin, end);
    if (pass == 0)
      for (int i = begin; i < end; ++i) v.embedding(type[i], rho[i], fp[i], embed[i]);
  });
}

void EamForce::functor_pass(int pass, AtomStore& a, const NeighborList& nl, const PassOptions& opt) const {
  const EamAtoms in{eam_view(tables_), a.x.data(),      a.y.data(),      a.z.data(),
                    a.type.data(),     rows_with_shift(nl, 0, rows_), nl.count.data(), nl.stride};
  if (pass == 0) {
    cpu_for(a.nlocal, EamDensity<>{in, a.embedding_derivative.data(), embed_.data()});
    return;
  }
  auto run = [&](auto tensor) {
    const EamForces<decltype(tensor)::value> f{in, a.embedding_derivative.data(), embed_.data(),
                                               kernel_outputs(a, opt)};
    cpu_for(a.nlocal, f);
  };
  if (opt.virial_tensor())
    run(std::true_type{});
  else
    run(std::false_type{});
}

std::vector<ManyBodyStyleEntry> eam_styles() {
  return {
      {"eam", true, false, &funcfl_cutoff, &make_funcfl, &funcfl_masses},
      {"eam/alloy", false, true, &setfl_cutoff<EamFormat::kSetfl>, &make_setfl<EamFormat::kSetfl>,
       &setfl_masses<EamFormat::kSetfl>},
      {"eam/fs", false, true, &setfl_cutoff<EamFormat::kFinnisSinclair>, &make_setfl<EamFormat::kFinnisSinclair>,
       &setfl_masses<EamFormat::kFinnisSinclair>},
  };
}

}  // namespace tessera
